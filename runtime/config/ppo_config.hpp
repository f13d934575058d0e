#pragma once
// Settings of the PPO learner (plain data: no LibTorch here).
#include <cstdint>
#include <string>

namespace dvla {

struct PpoConfig {
  double learning_rate = 1e-3;
  // From given points on, other rates: "POINT:RATE,..."
  // (runtime/config/learning_rate_schedule.hpp).
  std::string learning_rate_schedule;
  // What the schedule's points count: "versions" (policy updates) or "samples" (samples trained,
  // which grow alike per env step in sync and async mode, where versions do not).
  std::string learning_rate_schedule_unit = "versions";
  double gamma = 0.99;
  double gae_lambda = 0.95;
  double clip = 0.2;  // clip range of the importance ratio in the surrogate
  double value_coef = 0.5;
  double entropy_coef = 0.0;
  double max_grad_norm = 0.5;
  int epochs = 4;
  int minibatch_size = 256;  // samples per gradient step
  int batch_size = 1024;     // env steps the trainer gathers before an update
  int max_policy_lag = 4;    // staleness bound: samples more versions behind are dropped
  // Stale samples are weighted by proximal / behaviour probability; weights above the cap are
  // cut to it (truncated importance sampling, as IMPALA's rho-bar); 0: not cut.
  double importance_weight_cap = 0;
  bool normalize_advantages = true;
  double kl_coef = 0.0;  // weight of the KL to the starting policy (model.init, or the seed's)
};

}  // namespace dvla
