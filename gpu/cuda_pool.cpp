#include <dvla/gpu/cuda_pool.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>

namespace dvla::gpu {
namespace {

std::string cuda_error(const std::string& what, cudaError_t e) {
  return what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

class CudaPool final : public MemoryPool {
 public:
  CudaPool(std::string name, size_t budget, cudaMemPool_t pool, cudaStream_t stream, int device)
      : name_(std::move(name)), budget_(budget), pool_(pool), stream_(stream), device_(device) {}
  ~CudaPool() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    cudaMemPoolDestroy(pool_);
    cudaStreamDestroy(stream_);
  }

  const std::string& name() const override { return name_; }
  PoolKind kind() const override { return PoolKind::cuda; }

  Expected<void*> allocate(size_t bytes, size_t, void* stream) override {
    void* p = nullptr;
    cudaSetDevice(device_);
    const auto e = cudaMallocFromPoolAsync(&p, bytes, pool_, on(stream));
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear it: the next call must not see this failure
      ++failed_;
      auto refused = pool_exhausted(stats(), bytes);
      return Error(refused.message() + " (" + cudaGetErrorName(e) + ")");
    }
    ++allocations_;
    return p;
  }

  void deallocate(void* block, size_t, size_t, void* stream) noexcept override {
    if (!block) return;
    cudaSetDevice(device_);
    cudaFreeAsync(block, on(stream));
  }

  PoolStats stats() const override {
    PoolStats s;
    s.name = name_;
    s.kind = PoolKind::cuda;
    s.budget = budget_;
    s.reserved = attribute(cudaMemPoolAttrReservedMemCurrent);
    s.peak_reserved = attribute(cudaMemPoolAttrReservedMemHigh);
    s.in_use = attribute(cudaMemPoolAttrUsedMemCurrent);
    s.peak_in_use = attribute(cudaMemPoolAttrUsedMemHigh);
    s.largest_free_block = -1;  // CUDA does not say
    s.allocations = allocations_;
    s.failed_requests = failed_;
    return s;
  }

 private:
  cudaStream_t on(void* stream) const {
    return stream ? static_cast<cudaStream_t>(stream) : stream_;
  }
  size_t attribute(cudaMemPoolAttr a) const {
    uint64_t value = 0;
    return cudaMemPoolGetAttribute(pool_, a, &value) == cudaSuccess ? static_cast<size_t>(value)
                                                                    : 0;
  }

  std::string name_;
  size_t budget_;
  cudaMemPool_t pool_;
  cudaStream_t stream_;
  int device_;
  std::atomic<uint64_t> allocations_{0}, failed_{0};
};

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

void cuda_synchronize(int device) {
  if (cudaSetDevice(device) == cudaSuccess) cudaDeviceSynchronize();
}

Expected<std::shared_ptr<MemoryPool>> make_cuda_pool(const std::string& name, size_t budget,
                                                     size_t release_threshold, int device) {
  const int devices = cuda_device_count();
  if (device < 0 || device >= devices)
    return Error("pool '" + name + "': no CUDA device " + std::to_string(device) + " (" +
                 std::to_string(devices) + " found)");
  if (auto e = cudaSetDevice(device); e != cudaSuccess)
    return Error(cuda_error("pool '" + name + "': selecting the device", e));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  props.maxSize = budget;  // the budget, enforced by CUDA
  cudaMemPool_t pool;
  if (auto e = cudaMemPoolCreate(&pool, &props); e != cudaSuccess)
    return Error(cuda_error("pool '" + name + "': creating the memory pool", e));
  uint64_t threshold = std::min(release_threshold, budget);
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  cudaStream_t stream;
  if (auto e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) {
    cudaMemPoolDestroy(pool);
    return Error(cuda_error("pool '" + name + "': creating its stream", e));
  }
  return std::shared_ptr<MemoryPool>(
      std::make_shared<CudaPool>(name, budget, pool, stream, device));
}

}  // namespace dvla::gpu
