#pragma once
// The learning rate as a function of the policy version: ppo.learning_rate until the first step of
// ppo.learning_rate_schedule, written "VERSION:RATE,VERSION:RATE" (from VERSION on, RATE).
// Piecewise constant in the version, so a resumed run (which continues the version counter)
// continues the schedule where it was.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/expected.hpp"

namespace dvla {

class LearningRateSchedule {
 public:
  struct Step {
    uint64_t from_version;
    double rate;
  };

  // Steps must have increasing versions and positive rates; the error names the bad item.
  static Expected<LearningRateSchedule> parse(double initial_rate, const std::string& text);

  // The rate of the update that starts at `version` (and so produces version + 1).
  double at(uint64_t version) const;

 private:
  double initial_rate_ = 0;
  std::vector<Step> steps_;
};

}  // namespace dvla
