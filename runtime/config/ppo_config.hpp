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

// Where the decoupled objective's proximal policy (what lagging samples are clipped around) is
// read: a forward pass over the lagging samples before the update's first gradient step, or each
// lagging sample's minibatch forward pass when the update's first epoch reaches it (no extra pass;
// the anchor is then the policy a few gradient steps into the update, still the learner's own).
enum class ProximalPolicy { update_start, first_visit };

template <>
struct EnumNames<ProximalPolicy> {
  static constexpr std::array<std::pair<ProximalPolicy, std::string_view>, 2> names{
      {{ProximalPolicy::update_start, "update_start"},
       {ProximalPolicy::first_visit, "first_visit"}}};
};

// How the learning rate falls over a run, on top of the schedule: not at all, or linearly to 0
// at max_env_steps (by the samples trained, which track env steps in sync and async mode).
enum class LearningRateAnneal { none, linear };

template <>
struct EnumNames<LearningRateAnneal> {
  static constexpr std::array<std::pair<LearningRateAnneal, std::string_view>, 2> names{
      {{LearningRateAnneal::none, "none"}, {LearningRateAnneal::linear, "linear"}}};
};

// What PPO's rewards are divided by before advantages are computed: nothing, or the running
// standard deviation of the discounted return (Stable-Baselines3's VecNormalize): rewards of any
// scale then give value targets of order 1.
enum class RewardScale { none, return_std };

template <>
struct EnumNames<RewardScale> {
  static constexpr std::array<std::pair<RewardScale, std::string_view>, 2> names{
      {{RewardScale::none, "none"}, {RewardScale::return_std, "return_std"}}};
};

struct PpoConfig {
  double learning_rate = 1e-3;
  // From given points on, other rates: "POINT:RATE,..."
  // (runtime/config/learning_rate_schedule.hpp).
  std::string learning_rate_schedule;
  ScheduleUnit learning_rate_schedule_unit = ScheduleUnit::versions;
  LearningRateAnneal learning_rate_anneal = LearningRateAnneal::none;
  double gamma = 0.99;
  double gae_lambda = 0.95;
  // Clip range of the importance ratio in the surrogate. 0.1 with updates of 512: the policy may
  // move per env step about as far as 0.2 allowed with updates of 1,024 (docs/results.md).
  double clip = 0.1;
  double value_coef = 0.5;
  // > 0: the value loss is the larger of the plain and the clipped one, the new value kept within
  // this of the value the samples carry (PPO2's value clipping); 0: plain.
  double value_clip = 0.0;
  RewardScale reward_scale = RewardScale::return_std;
  double entropy_coef = 0.0;
  double max_grad_norm = 0.5;
  int epochs = 4;
  int minibatch_size = 256;  // samples per gradient step
  // Env steps the trainer gathers before an update. Async trains each batch about one version
  // late; smaller updates make that version's data fewer env steps old (docs/results.md).
  int batch_size = 512;
  int max_policy_lag = 4;    // staleness bound: samples more versions behind are dropped
  // Stale samples are weighted by proximal / behaviour probability; weights above the cap are
  // cut to it (truncated importance sampling, as IMPALA's rho-bar); 0: not cut.
  double importance_weight_cap = 0;
  ProximalPolicy proximal_policy = ProximalPolicy::first_visit;
  bool normalize_advantages = true;
  AdvantageValues advantage_values = AdvantageValues::learner;
  double kl_coef = 0.0;  // weight of the KL to the starting policy (model.init, or the seed's)
  // > 0: an update ends early, before the first minibatch whose approximate KL from the proximal
  // (or behaviour) policy exceeds 1.5x this (Stable-Baselines3's target_kl); 0: every epoch.
  double target_kl = 0.0;
  // > 0: the learning rate follows the policy's movement (rsl_rl's adaptive schedule): after a
  // gradient step whose approximate KL is above 2x this it is divided by 1.5, below half of it
  // (and above 0) multiplied by 1.5, kept within [0.01, 10] times the scheduled rate; 0: off.
  double adaptive_kl = 0.0;
};

}  // namespace dvla
