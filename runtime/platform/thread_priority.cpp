#include <dvla/runtime/platform/thread_priority.hpp>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include <dvla/runtime/storage/durable_file.hpp>

namespace dvla {
namespace {

// On Linux, PRIO_PROCESS with a thread id addresses that thread alone.
id_t this_thread_id() { return static_cast<id_t>(::syscall(SYS_gettid)); }

Status set_nice(int nice) {
  if (::setpriority(PRIO_PROCESS, this_thread_id(), nice) != 0)
    return Error("setting this thread's nice value to " + std::to_string(nice) +
                 " failed: " + describe_errno(errno));
  return {};
}

}  // namespace

Status set_this_thread_nice(int nice) {
  if (nice < 0 || nice > 19)
    return Error("a thread's nice value is from 0 to 19, not " + std::to_string(nice));
  return set_nice(nice);
}

Status lower_this_thread_priority(int steps) {
  if (steps < 0 || steps > 19)
    return Error("a thread's priority is lowered by 0 to 19 nice steps, not " +
                 std::to_string(steps));
  if (steps == 0) return {};
  return set_nice(std::min(19, this_thread_nice() + steps));
}

int this_thread_nice() {
  errno = 0;
  return ::getpriority(PRIO_PROCESS, this_thread_id());
}

}  // namespace dvla
