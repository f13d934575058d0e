#pragma once
// MemoryPool: one named pool of memory with a budget, the unit of dvla's dual-pool memory. A
// process has two: `sim` (simulator memory: many small, short-lived blocks) and `model` (weights,
// optimizer state, staging buffers: few large, long-lived blocks), so the simulator's churn cannot
// fragment the space the model needs (gpu/memory_pools.hpp). Implementations: HostPool (a
// std::pmr pool resource over a reserved arena) and CudaPool (a cudaMemPool_t).
//
// Allocation beyond what the pool can give fails with an error naming the pool, the request and
// the budget; it never aborts. Every implementation is safe to use from several threads.
#include <cstddef>
#include <cstdint>
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla::gpu {

enum class PoolKind : uint8_t { host, cuda };

constexpr size_t default_alignment = 64;

struct PoolStats {
  std::string name;
  PoolKind kind = PoolKind::host;
  size_t budget = 0;    // the most the pool may hold
  size_t reserved = 0;  // taken from the arena / device for the pool now
  size_t peak_reserved = 0;
  size_t in_use = 0;  // handed out to callers now
  size_t peak_in_use = 0;
  int64_t largest_free_block = -1;  // the largest block still free in one piece; -1: unknown
  uint64_t allocations = 0;
  uint64_t failed_requests = 0;
};

class MemoryPool {
 public:
  virtual ~MemoryPool() = default;

  virtual const std::string& name() const = 0;
  virtual PoolKind kind() const = 0;
  // `stream`: a CUDA pool allocates in that stream's order (a cudaStream_t; null: its own stream);
  // a host pool ignores it.
  virtual Expected<void*> allocate(size_t bytes, size_t alignment = default_alignment,
                                   void* stream = nullptr) = 0;
  virtual void deallocate(void* block, size_t bytes, size_t alignment = default_alignment,
                          void* stream = nullptr) noexcept = 0;
  virtual PoolStats stats() const = 0;
};

// "pool 'model' cannot allocate 64.0 MiB: budget 128.0 MiB, 100.0 MiB in use, largest free
// block 20.0 MiB" — the error every pool gives for a request it cannot serve.
Error pool_exhausted(const PoolStats& stats, size_t bytes);

// Sizes for people: "512 B", "1.5 KiB", "64.0 MiB", "2.00 GiB".
std::string format_bytes(size_t bytes);

}  // namespace dvla::gpu
