#pragma once
// A thread's CPU priority (its nice value, which Linux keeps per thread): work that only observes
// a run, such as evaluations, can take the cores the lanes leave instead of competing with them,
// and a lane with slack (sampling) can leave the cores to the lane that bounds the pipeline.
#include <dvla/core/expected.hpp>

namespace dvla {

// Sets the calling thread's nice value to `nice` (0 to 19; raising it needs no privilege). Threads
// it starts afterwards inherit it. The error says what the OS refused.
Status set_this_thread_nice(int nice);

// Raises the calling thread's nice value by `steps` (0 to 19) from what it is now, up to 19, so
// that it works under a process started with `nice` too. Threads it starts afterwards inherit it.
Status lower_this_thread_priority(int steps);

// The calling thread's nice value.
int this_thread_nice();

}  // namespace dvla
