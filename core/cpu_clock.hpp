#pragma once
// CPU clocks: the CPU time of the calling thread and of the whole process, in nanoseconds. Time a
// thread waited or was preempted does not count, so figures from them hold on a loaded machine.
// Each read is a system call of about a microsecond.
#include <cstdint>

namespace dvla {

int64_t thread_cpu_ns() noexcept;
int64_t process_cpu_ns() noexcept;

}  // namespace dvla
