#include <dvla/gpu/pool_lease.hpp>

#include <new>

namespace dvla::gpu {

PoolLease::PoolLease(std::shared_ptr<MemoryPool> pool, std::string holder, void* stream)
    : pool_(std::move(pool)), holder_(std::move(holder)), stream_(stream) {}

PoolLease::~PoolLease() {
  for (const auto& [block, b] : blocks_) pool_->deallocate(block, b.bytes, b.alignment, stream_);
}

Expected<void*> PoolLease::allocate_block(size_t bytes, size_t alignment) {
  auto block = pool_->allocate(bytes, alignment, stream_);
  if (!block) return Error(holder_ + ": " + block.error().message());
  std::lock_guard lock(mutex_);
  blocks_[*block] = {bytes, alignment};
  held_bytes_ += bytes;
  return *block;
}

void PoolLease::release_block(void* block) noexcept {
  if (!block) return;
  Block b;
  {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(block);
    if (it == blocks_.end()) return;  // not from this lease
    b = it->second;
    blocks_.erase(it);
    held_bytes_ -= b.bytes;
  }
  pool_->deallocate(block, b.bytes, b.alignment, stream_);
}

size_t PoolLease::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_bytes_;
}

size_t PoolLease::held_blocks() const {
  std::lock_guard lock(mutex_);
  return blocks_.size();
}

void* PoolLease::do_allocate(size_t bytes, size_t alignment) {
  auto block = allocate_block(bytes, alignment);
  if (!block) throw PoolExhausted(block.error().message());
  return *block;
}

void PoolLease::do_deallocate(void* p, size_t, size_t) { release_block(p); }

}  // namespace dvla::gpu
