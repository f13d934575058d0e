#pragma once
// PoolLease: one actor's share of a MemoryPool. Everything allocated through a lease is recorded,
// and whatever is still held when the lease ends goes back to the pool, so an actor that owns its
// lease returns its memory when it ends, however it ends (its state is destroyed also when it
// crashes or is killed). A lease is also a std::pmr::memory_resource, for pmr containers.
// Thread-safe; errors name the holder and the pool.
#include <memory>
#include <memory_resource>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include <dvla/gpu/memory_pool.hpp>

namespace dvla::gpu {

// What a lease throws where the pmr contract needs an exception: a std::bad_alloc whose what()
// is the pool's sentence (holder, pool, request, budget).
class PoolExhausted : public std::bad_alloc {
 public:
  explicit PoolExhausted(std::string why) : why_(std::move(why)) {}
  const char* what() const noexcept override { return why_.c_str(); }

 private:
  std::string why_;
};

class PoolLease final : public std::pmr::memory_resource {
 public:
  // `stream`: the lane's stream, for CUDA pools (null: the pool's own).
  PoolLease(std::shared_ptr<MemoryPool> pool, std::string holder, void* stream = nullptr);
  ~PoolLease() override;
  PoolLease(const PoolLease&) = delete;
  PoolLease& operator=(const PoolLease&) = delete;

  // "<holder>: pool '<name>' cannot allocate ..." when the pool cannot serve it.
  Expected<void*> allocate_block(size_t bytes, size_t alignment = default_alignment);
  void release_block(void* block) noexcept;

  size_t held_bytes() const;
  size_t held_blocks() const;
  MemoryPool& pool() const { return *pool_; }
  const std::string& holder() const { return holder_; }

 private:
  void* do_allocate(size_t bytes, size_t alignment) override;  // throws PoolExhausted
  void do_deallocate(void* p, size_t bytes, size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  struct Block {
    size_t bytes, alignment;
  };
  std::shared_ptr<MemoryPool> pool_;
  std::string holder_;
  void* stream_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_;
  size_t held_bytes_ = 0;
};

}  // namespace dvla::gpu
