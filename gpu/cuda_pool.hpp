#pragma once
// CudaPool: a MemoryPool on a CUDA device, backed by a cudaMemPool_t of its own. The budget is
// the pool's maximum size (cudaMemPoolProps::maxSize), so a request beyond it fails there, with
// the pool's error, instead of taking memory from the other pool; the release threshold is how
// much freed memory the pool keeps reserved between synchronisations instead of returning it to
// the device. Allocation is stream-ordered (cudaMallocFromPoolAsync) on the caller's stream (the
// lane's), or on the pool's own. Compiled only where the CUDA toolkit is found (DVLA_HAVE_CUDA).
#include <memory>
#include <string>

#include <dvla/gpu/memory_pool.hpp>

namespace dvla::gpu {

// Devices the CUDA runtime sees; 0 without a driver or a GPU (never an error).
int cuda_device_count();

// Waits until everything queued on `device` (every stream) has run.
void cuda_synchronize(int device = 0);

// Builds a CUDA pool on `device`, or says why it cannot (no device, pool creation failed).
Expected<std::shared_ptr<MemoryPool>> make_cuda_pool(const std::string& name, size_t budget,
                                                     size_t release_threshold, int device = 0);

}  // namespace dvla::gpu
