#pragma once
// Pins the calling thread to a set of hardware threads and names it (what `top -H` and
// /proc/PID/task/TID/comm show), for graph.placement = auto; reads back what the OS applied.
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/platform/placement.hpp>

namespace dvla {

// An empty set pins nothing (the name is still set). The error names the set and why the OS
// refused it; the thread then runs where it did.
Status pin_this_thread(const CpuSet& set, const std::string& name);

// The hardware threads the calling thread may run on now.
CpuSet affinity_of_this_thread();

}  // namespace dvla
