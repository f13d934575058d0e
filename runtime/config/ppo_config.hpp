#pragma once
// Settings of the PPO learner (plain data: no LibTorch here).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <dvla/core/enum_text.hpp>

namespace dvla {

// What the points of a learning-rate schedule count: policy versions (updates), or samples
// trained (which grow alike per env step in sync and async mode, where versions do not).
enum class ScheduleUnit { versions, samples };

template <>
struct EnumNames<ScheduleUnit> {
  static constexpr std::array<std::pair<ScheduleUnit, std::string_view>, 2> names{
      {{ScheduleUnit::versions, "versions"}, {ScheduleUnit::samples, "samples"}}};
};

// Whose critic values advantages and value targets are computed with: the behaviour policy's,
// which the samples carry (one or more versions old in async mode), or the learner's own at the
// start of the update (fresh values, as V-trace's targets are).
enum class AdvantageValues { behaviour, learner };

template <>
struct EnumNames<AdvantageValues> {
  static constexpr std::array<std::pair<AdvantageValues, std::string_view>, 2> names{
      {{AdvantageValues::behaviour, "behaviour"}, {AdvantageValues::learner, "learner"}}};
};

struct PpoConfig {
  double learning_rate = 1e-3;
  // From given points on, other rates: "POINT:RATE,..."
  // (runtime/config/learning_rate_schedule.hpp).
  std::string learning_rate_schedule;
  ScheduleUnit learning_rate_schedule_unit = ScheduleUnit::versions;
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
  AdvantageValues advantage_values = AdvantageValues::behaviour;
  double kl_coef = 0.0;  // weight of the KL to the starting policy (model.init, or the seed's)
};

}  // namespace dvla
