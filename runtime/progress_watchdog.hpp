#pragma once
// ProgressWatchdog: notices a run that stopped moving. Env steps, policy versions and finished
// evaluations are its signs of life; none of them for `limit_s` means an actor hangs (data-plane
// requests carry no timeout of their own).
#include <chrono>
#include <string>

#include "runtime/expected.hpp"
#include "runtime/run_status.hpp"

namespace dvla {

class ProgressWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ProgressWatchdog(double limit_s, Clock::time_point start = Clock::now())
      : limit_(limit_s), last_change_(start) {}

  // The run's status seen at `now`: an error naming the standstill once it lasted the limit.
  Status check(const RunStatus& s, Clock::time_point now = Clock::now()) {
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
  Clock::time_point last_change_;
  uint64_t env_steps_ = 0, version_ = 0, evaluations_ = 0;
};

}  // namespace dvla
