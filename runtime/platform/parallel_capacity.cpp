#include <dvla/runtime/platform/parallel_capacity.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include <dvla/runtime/platform/thread_pinning.hpp>

namespace dvla {
namespace {

using Clock = std::chrono::steady_clock;

// Cores the calling thread may run on (a container's, taskset's or pinning's limit), at least 1.
int usable_cores() {
  const auto mask = affinity_of_this_thread();
  if (mask.empty()) return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return static_cast<int>(mask.size());
}

constexpr int kRoundsPerChunk = 1 << 14;

// Busy work in chunks of dependent integer operations (no memory traffic, nothing the compiler
// can drop: the result is kept); returns the chunks done before `until`.
uint64_t chunks_until(Clock::time_point until, std::atomic<uint64_t>& sink) {
  uint64_t x = 0x9e3779b97f4a7c15ULL, chunks = 0;
  while (Clock::now() < until) {
    for (int i = 0; i < kRoundsPerChunk; ++i) {  // xorshift64
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    ++chunks;
  }
  sink.fetch_xor(x, std::memory_order_relaxed);
  return chunks;
}

// Chunks per second of `threads` threads running at once for `each`.
double rate(int threads, std::chrono::duration<double> each) {
  std::atomic<uint64_t> sink{0};
  std::vector<uint64_t> done(static_cast<size_t>(threads), 0);
  // Every thread starts against the same deadline, a little ahead so that all have started.
  const auto start = Clock::now() + std::chrono::milliseconds(20);
  const auto until = start + std::chrono::duration_cast<Clock::duration>(each);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::this_thread::sleep_until(start);
      done[static_cast<size_t>(t)] = chunks_until(until, sink);
    });
  for (auto& t : pool) t.join();
  uint64_t total = 0;
  for (auto d : done) total += d;
  return static_cast<double>(total) / each.count();
}

}  // namespace

std::string ParallelCapacity::text() const {
  const auto one = fmt::format("one thread: {:.0f} M loop rounds/s", one_thread_rounds_per_s / 1e6);
  if (threads == 1) return "1 core (" + one + ")";
  return fmt::format("{} cores: {} busy threads do {:.2f}x one thread's work ({})", threads,
                     threads, speedup, one);
}

ParallelCapacity measure_parallel_capacity(std::chrono::duration<double> each) {
  ParallelCapacity c;
  c.threads = usable_cores();
  if (c.threads == 1) {
    c.one_thread_rounds_per_s = rate(1, each) * kRoundsPerChunk;
    return c;
  }
  // One thread before and after the many: a machine that speeds up or slows down meanwhile
  // (frequency, a neighbour) moves both sides of the ratio alike.
  const double before = rate(1, each);
  const double together = rate(c.threads, each);
  const double one = (before + rate(1, each)) / 2;
  c.one_thread_rounds_per_s = one * kRoundsPerChunk;
  c.speedup = one > 0 ? together / one : 1.0;
  return c;
}

}  // namespace dvla
