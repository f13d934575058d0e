#pragma once
// HostPool: a MemoryPool in host memory. Small blocks (up to `small_block` bytes) come from a
// std::pmr::unsynchronized_pool_resource behind the pool's mutex, which carves them out of chunks;
// chunks and large blocks come from the pool's own ArenaResource, reserved at the budget's size.
// Callers give back a block with the size they asked for (it says where the block came from).
// Nothing of the pool lives outside its arena, so one pool's churn cannot fragment another's space.
// Not std::pmr::synchronized_pool_resource: it keeps per-thread pools that each thread hands back
// from a thread-exit handler, and CAF's detached actor threads can still be in theirs when the
// actor system (and then the pool) is gone: a segfault in libstdc++ (tests/test_memory.cpp).
#include <atomic>
#include <memory_resource>
#include <mutex>
#include <string>

#include <dvla/gpu/arena_resource.hpp>
#include <dvla/gpu/memory_pool.hpp>

namespace dvla::gpu {

class HostPool final : public MemoryPool {
 public:
  // Throws std::invalid_argument for a budget below 64 KiB (the pool's own bookkeeping).
  HostPool(std::string name, size_t budget, size_t small_block = 64 * 1024);

  const std::string& name() const override { return name_; }
  PoolKind kind() const override { return PoolKind::host; }
  Expected<void*> allocate(size_t bytes, size_t alignment = default_alignment,
                           void* stream = nullptr) override;
  void deallocate(void* block, size_t bytes, size_t alignment = default_alignment,
                  void* stream = nullptr) noexcept override;
  PoolStats stats() const override;

 private:
  void* small(size_t bytes, size_t alignment);  // from blocks_; throws std::bad_alloc

  std::string name_;
  size_t small_block_;
  ArenaResource arena_;
  std::mutex blocks_mutex_;
  std::pmr::unsynchronized_pool_resource blocks_;  // blocks_mutex_ held
  std::atomic<size_t> in_use_{0}, peak_in_use_{0};
  std::atomic<uint64_t> allocations_{0}, failed_{0};
};

}  // namespace dvla::gpu
