#pragma once
// ArenaResource: a std::pmr::memory_resource over one reserved range of address space (the pool's
// budget, mapped without committing: untouched pages cost nothing). Blocks are carved best-fit
// from an address-ordered free list and coalesce with free neighbours when returned, so what
// fragmentation costs is visible: largest_free() is the largest request that can still succeed.
// Thread-safe. Throws std::bad_alloc when no free block fits (the pmr contract).
#include <cstddef>
#include <map>
#include <memory_resource>
#include <mutex>
#include <set>
#include <unordered_map>

namespace dvla::gpu {

class ArenaResource final : public std::pmr::memory_resource {
 public:
  explicit ArenaResource(size_t capacity);
  ~ArenaResource() override;
  ArenaResource(const ArenaResource&) = delete;
  ArenaResource& operator=(const ArenaResource&) = delete;

  size_t capacity() const { return capacity_; }
  size_t in_use() const;  // bytes of the blocks handed out (rounded to the granule)
  size_t peak() const;
  size_t largest_free() const;

  // Blocks are multiples of this; so is every block's start within the arena.
  static constexpr size_t granule = 64;
  static constexpr size_t base_alignment = size_t{2} << 20;

 private:
  void* do_allocate(size_t bytes, size_t alignment) override;
  void do_deallocate(void* p, size_t bytes, size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  void add_free(size_t begin, size_t end);  // coalescing with neighbours; mutex held
  void take_free(size_t begin);             // mutex held

  struct Span {
    size_t begin, end;
  };
  size_t capacity_;
  char* mapping_;  // what mmap gave
  char* base_;     // the arena's first byte, within it
  mutable std::mutex mutex_;
  std::map<size_t, size_t> free_by_begin_;            // begin -> end
  std::set<std::pair<size_t, size_t>> free_by_size_;  // (size, begin): best fit
  std::unordered_map<size_t, Span> used_;             // handed-out offset -> its span
  size_t in_use_ = 0, peak_ = 0;
};

}  // namespace dvla::gpu
