#pragma once
// The learning rate as a function of a point in training, the policy version or the samples
// trained (ppo.learning_rate_schedule_unit): ppo.learning_rate until the first step of
// ppo.learning_rate_schedule, written "POINT:RATE,POINT:RATE" (from POINT on, RATE). Piecewise
// constant, so a resumed run (which continues both counters) continues the schedule where it was.
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/ppo_config.hpp>

namespace dvla {

class LearningRateSchedule {
 public:
  struct Step {
    uint64_t from;  // a version or a count of samples trained
    double rate;
  };

  // Steps must have increasing points and positive rates; the error names the bad item.
  static Expected<LearningRateSchedule> parse(double initial_rate, const std::string& text);

  // The rate of the update that starts at `point` (a version: the update produces version + 1).
  double at(uint64_t point) const;

 private:
  double initial_rate_ = 0;
  std::vector<Step> steps_;
};

// `rate` annealed as `anneal` says, `samples_trained` into a run of `max_env_steps`: linear goes
// from rate at 0 to 0 at max_env_steps (and stays there, for a run resumed with more steps).
double annealed_rate(double rate, LearningRateAnneal anneal, uint64_t samples_trained,
                     uint64_t max_env_steps);

}  // namespace dvla
