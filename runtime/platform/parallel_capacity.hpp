#pragma once
// ParallelCapacity: how much work this process's cores do together against one core alone, read
// by running the same busy loop on one thread and then on one thread per usable core. A VM whose
// cores share a physical core or a host's quota, or a machine with other busy processes, does less
// than the core count says; async's gain over sync (lanes overlapping) is bounded by it, so
// dvla-bench prints it beside its ratios, with one thread's speed to compare machines by.
#include <chrono>
#include <string>

namespace dvla {

struct ParallelCapacity {
  int threads = 1;                     // one per core the caller may run on (its affinity mask)
  double speedup = 1;                  // their work per second together / one thread's alone
  double one_thread_rounds_per_s = 0;  // of the busy loop (xorshift rounds), one thread alone
  // "2 cores: 2 busy threads do 1.93x one thread's work (one thread: 412 M loop rounds/s)";
  // "1 core (one thread: 412 M loop rounds/s)".
  std::string text() const;
};

// Measures for `each` on one thread, on `threads` at once, and on one thread again (a few
// tenths of a second each is enough: the loop touches no memory).
ParallelCapacity measure_parallel_capacity(
    std::chrono::duration<double> each = std::chrono::milliseconds(300));

}  // namespace dvla
