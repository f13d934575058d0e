#include <dvla/gpu/host_pool.hpp>

#include <algorithm>
#include <new>
#include <stdexcept>

namespace dvla::gpu {
namespace {

std::pmr::pool_options options(size_t small_block) {
  std::pmr::pool_options o;
  o.largest_required_pool_block = small_block;
  o.max_blocks_per_chunk = 64;  // chunks stay small next to the budget
  return o;
}

// The pool resource takes its own bookkeeping from the arena when it is built.
constexpr size_t smallest_budget = 64 * 1024;

size_t checked(const std::string& name, size_t budget) {
  if (budget < smallest_budget)
    throw std::invalid_argument("pool '" + name + "': a budget of " + format_bytes(budget) +
                                " is below the " + format_bytes(smallest_budget) +
                                " a pool needs for itself");
  return budget;
}

}  // namespace

HostPool::HostPool(std::string name, size_t budget, size_t small_block)
    : name_(std::move(name)),
      small_block_(small_block),
      arena_(checked(name_, budget)),
      blocks_(options(small_block), &arena_) {}

void* HostPool::small(size_t bytes, size_t alignment) {
  std::lock_guard lock(blocks_mutex_);
  return blocks_.allocate(bytes, alignment);
}

Expected<void*> HostPool::allocate(size_t bytes, size_t alignment, void*) {
  try {
    // Large blocks go to the arena directly: through the pool resource they would add its
    // bookkeeping (small blocks of its own) to the arena, between them.
    void* p = bytes > small_block_ ? arena_.allocate(bytes, alignment) : small(bytes, alignment);
    const size_t now = in_use_ += bytes;
    size_t peak = peak_in_use_.load();
    while (now > peak && !peak_in_use_.compare_exchange_weak(peak, now)) {
    }
    ++allocations_;
    return p;
  } catch (const std::bad_alloc&) {
    ++failed_;
    return pool_exhausted(stats(), bytes);
  }
}

void HostPool::deallocate(void* block, size_t bytes, size_t alignment, void*) noexcept {
  if (!block) return;
  if (bytes > small_block_) {
    arena_.deallocate(block, bytes, alignment);
  } else {
    std::lock_guard lock(blocks_mutex_);
    blocks_.deallocate(block, bytes, alignment);
  }
  in_use_ -= bytes;
}

PoolStats HostPool::stats() const {
  PoolStats s;
  s.name = name_;
  s.kind = PoolKind::host;
  s.budget = arena_.capacity();
  s.reserved = arena_.in_use();
  s.peak_reserved = arena_.peak();
  s.in_use = in_use_;
  s.peak_in_use = peak_in_use_;
  s.largest_free_block = static_cast<int64_t>(arena_.largest_free());
  s.allocations = allocations_;
  s.failed_requests = failed_;
  return s;
}

}  // namespace dvla::gpu
