#pragma once
// ProgressWatchdog: notices a run that stopped moving. Env steps, policy versions and finished
// evaluations are its signs of life; none of them for `limit_s` means an actor hangs (data-plane
// requests carry no timeout of their own). Time the watching process itself did not run (SIGSTOP,
// a paused VM, a debugger) is not a standstill of the run: a gap between two checks longer than
// `pause_s` is left out of the count.
#include <algorithm>
#include <chrono>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/run/run_status.hpp>

namespace dvla {

class ProgressWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  // Checks come every few tens of milliseconds; one that comes 10 s late (or half the limit,
  // whichever is shorter) means the process was paused.
  explicit ProgressWatchdog(double limit_s, Clock::time_point start = Clock::now())
      : limit_(limit_s),
        pause_(std::min(limit_s / 2, 10.0)),
        last_change_(start),
        last_check_(start) {}

  // The run's status seen at `now`: an error naming the standstill once it lasted the limit.
  Status check(const RunStatus& s, Clock::time_point now = Clock::now()) {
    const auto since_check = now - last_check_;
    last_check_ = now;
    if (std::chrono::duration<double>(since_check).count() > pause_) last_change_ += since_check;
    if (s.env_steps != env_steps_ || s.version != version_ || s.evaluations != evaluations_) {
      env_steps_ = s.env_steps;
      version_ = s.version;
      evaluations_ = s.evaluations;
      last_change_ = now;
      return {};
    }
    const double still = std::chrono::duration<double>(now - last_change_).count();
    if (still < limit_) return {};
    return Error("the run made no progress for " + std::to_string(static_cast<int>(still)) +
                 " s (env steps " + std::to_string(s.env_steps) + ", version " +
                 std::to_string(s.version) +
                 "): an actor hangs, or an update takes longer than message_timeout_s");
  }

 private:
  double limit_;
  double pause_;
  Clock::time_point last_change_;
  Clock::time_point last_check_;
  uint64_t env_steps_ = 0, version_ = 0, evaluations_ = 0;
};

}  // namespace dvla
