#pragma once
// RunStatus: where a training run stands, as the supervisor sees it. Plain data for progress
// lines, the JSON summary and tests.
#include <cstdint>
#include <string>

namespace dvla {

struct RunStatus {
  uint64_t env_steps = 0;
  double wall_seconds = 0;
  double steps_per_second = 0;
  uint64_t episodes = 0;
  double mean_return = 0;      // over the last 100 finished episodes
  double success_rate = 0;     // of the same episodes (envs with a goal)
  uint64_t version = 0;        // latest policy version
  double policy_lag_mean = 0;  // versions behind, averaged over every trained sample
  uint64_t samples_trained = 0;
  uint64_t dropped_stale = 0;      // env steps dropped by the staleness bound
  uint64_t rejected_messages = 0;  // malformed messages refused by any actor
  bool finished = false;
  std::string failure;  // why the run stopped early; empty when it did not
};

}  // namespace dvla
