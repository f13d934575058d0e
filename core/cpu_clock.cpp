#include <dvla/core/cpu_clock.hpp>

#include <time.h>

namespace dvla {
namespace {

int64_t read_ns(clockid_t clock) noexcept {
  timespec t{};
  clock_gettime(clock, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

int64_t thread_cpu_ns() noexcept { return read_ns(CLOCK_THREAD_CPUTIME_ID); }
int64_t process_cpu_ns() noexcept { return read_ns(CLOCK_PROCESS_CPUTIME_ID); }

}  // namespace dvla
