#pragma once
// The staleness bound: samples collected by a policy more than `max_lag` versions behind the
// learner's are dropped, and counted, rather than learned from.
#include <cstdint>

namespace dvla {

class StalenessBound {
 public:
  // `dropped_before`: samples an earlier learner of the run dropped (a restarted one counts on).
  explicit StalenessBound(uint64_t max_lag, uint64_t dropped_before = 0)
      : max_lag_(max_lag), dropped_(dropped_before) {}

  static uint64_t lag(uint64_t learner_version, uint64_t behaviour_version) {
    return learner_version > behaviour_version ? learner_version - behaviour_version : 0;
  }
  // Admits or drops `samples` collected with `oldest_version` (the oldest among them).
  bool admit(uint64_t learner_version, uint64_t oldest_version, uint64_t samples) {
    if (lag(learner_version, oldest_version) > max_lag_) {
      dropped_ += samples;
      return false;
    }
    return true;
  }
  uint64_t dropped() const { return dropped_; }
  uint64_t max_lag() const { return max_lag_; }

 private:
  uint64_t max_lag_;
  uint64_t dropped_ = 0;
};

}  // namespace dvla
