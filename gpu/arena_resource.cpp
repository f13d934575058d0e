#include <dvla/gpu/arena_resource.hpp>

#include <sys/mman.h>

#include <new>
#include <stdexcept>
#include <string>

namespace dvla::gpu {
namespace {

size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

}  // namespace

ArenaResource::ArenaResource(size_t capacity) : capacity_(round_up(capacity, granule)) {
  if (capacity_ == 0) throw std::invalid_argument("an arena needs a capacity above 0 bytes");
  // The base is aligned to base_alignment, so where a block lands does not depend on where the
  // kernel put the mapping (placements are reproducible for alignments up to that).
  void* p = mmap(nullptr, capacity_ + base_alignment, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw std::runtime_error("cannot reserve an arena of " + std::to_string(capacity_) + " bytes");
  mapping_ = static_cast<char*>(p);
  base_ = mapping_ +
          (round_up(reinterpret_cast<size_t>(p), base_alignment) - reinterpret_cast<size_t>(p));
  add_free(0, capacity_);
}

ArenaResource::~ArenaResource() { munmap(mapping_, capacity_ + base_alignment); }

size_t ArenaResource::in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

size_t ArenaResource::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

size_t ArenaResource::largest_free() const {
  std::lock_guard lock(mutex_);
  return free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
}

void ArenaResource::add_free(size_t begin, size_t end) {
  auto next = free_by_begin_.lower_bound(begin);
  if (next != free_by_begin_.end() && next->first == end) {
    end = next->second;
    free_by_size_.erase({next->second - next->first, next->first});
    next = free_by_begin_.erase(next);
  }
  if (next != free_by_begin_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == begin) {
      begin = prev->first;
      free_by_size_.erase({prev->second - prev->first, prev->first});
      free_by_begin_.erase(prev);
    }
  }
  free_by_begin_[begin] = end;
  free_by_size_.insert({end - begin, begin});
}

void ArenaResource::take_free(size_t begin) {
  auto it = free_by_begin_.find(begin);
  free_by_size_.erase({it->second - it->first, it->first});
  free_by_begin_.erase(it);
}

void* ArenaResource::do_allocate(size_t bytes, size_t alignment) {
  const size_t size = round_up(std::max<size_t>(bytes, 1), granule);
  const size_t align = std::max(alignment, granule);
  std::lock_guard lock(mutex_);
  // Best fit: the smallest free block that holds the request after aligning its start.
  for (auto it = free_by_size_.lower_bound({size, 0}); it != free_by_size_.end(); ++it) {
    const auto [block_size, begin] = *it;
    const size_t start =
        round_up(reinterpret_cast<size_t>(base_) + begin, align) - reinterpret_cast<size_t>(base_);
    const size_t end = begin + block_size;
    if (start + size > end) continue;
    take_free(begin);
    if (start > begin) add_free(begin, start);
    if (start + size < end) add_free(start + size, end);
    used_[start] = {start, start + size};
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
    return base_ + start;
  }
  throw std::bad_alloc();
}

void ArenaResource::do_deallocate(void* p, size_t, size_t) {
  const auto offset = static_cast<size_t>(static_cast<char*>(p) - base_);
  std::lock_guard lock(mutex_);
  auto it = used_.find(offset);
  if (it == used_.end()) return;  // not ours: nothing to return
  const Span s = it->second;
  used_.erase(it);
  in_use_ -= s.end - s.begin;
  add_free(s.begin, s.end);
}

}  // namespace dvla::gpu
