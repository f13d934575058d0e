#pragma once
// ActorCritic: the built-in MLP policy. Separate actor and critic towers of tanh layers, a
// categorical or Gaussian head by action space (a state-independent log standard deviation),
// orthogonal initialisation, and optionally a running normalisation of the observations that
// both towers see.
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <memory>
#include <vector>

#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

class ActionDistribution;
class ObservationNormalizer;

// Its shape and starting point (config keys model.hidden, model.normalize_observations,
// model.initial_log_std).
struct ActorCriticOptions {
  std::vector<int64_t> hidden = {64, 64};  // widths of each tower's tanh layers
  bool normalize_observations = true;      // runtime/policies/observation_normalizer.hpp
  double initial_log_std = 0.0;            // continuous actions: log std of the first policy
};

class ActorCritic final : public Policy {
 public:
  // Initial parameters are drawn from `seed`, so replicas built with one seed are identical.
  ActorCritic(const envs::EnvSpec& spec, const ActorCriticOptions& options, uint64_t seed);
  // `hidden` layers, the other options at their defaults.
  ActorCritic(const envs::EnvSpec& spec, const std::vector<int64_t>& hidden, uint64_t seed)
      : ActorCritic(spec, ActorCriticOptions{hidden}, seed) {}

  // Sees only the float observation (state); images and instructions are ignored.
  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override;
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override;
  torch::Tensor value(const PolicyInput& input) override;
  // Merges the batch's observations into the normalisation statistics (if it normalises).
  void update_statistics(const PolicyInput& batch) override;

 private:
  // The float observation [N, obs] as the towers see it (normalised if it normalises).
  torch::Tensor features(const torch::Tensor& state) const;
  // The actor's distribution given features().
  ActionDistribution distribution(const torch::Tensor& features);

  envs::ActionSpace space_;
  torch::nn::Sequential actor_{nullptr}, critic_{nullptr};
  torch::Tensor log_std_;  // continuous actions only
  std::shared_ptr<ObservationNormalizer> normalizer_;  // null: observations as they are
};

// The built-in policy for an env, as a shared Policy.
std::shared_ptr<Policy> make_actor_critic(const envs::EnvSpec& spec,
                                          const ActorCriticOptions& options, uint64_t seed);
// The same with `hidden` layers and the other options at their defaults.
std::shared_ptr<Policy> make_actor_critic(const envs::EnvSpec& spec,
                                          const std::vector<int64_t>& hidden, uint64_t seed);

}  // namespace dvla
