#pragma once
// ActorCritic: the built-in MLP policy. Separate actor and critic towers of tanh layers, a
// categorical or Gaussian head by action space, orthogonal initialisation.
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <memory>
#include <vector>

#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

class ActionDistribution;

class ActorCritic final : public Policy {
 public:
  // Initial parameters are drawn from `seed`, so replicas built with one seed are identical.
  ActorCritic(const envs::EnvSpec& spec, const std::vector<int64_t>& hidden, uint64_t seed);

  // Sees only the float observation (state); images and instructions are ignored.
  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override;
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override;
  torch::Tensor value(const PolicyInput& input) override;

 private:
  ActionDistribution distribution(const torch::Tensor& state);

  envs::ActionSpace space_;
  torch::nn::Sequential actor_{nullptr}, critic_{nullptr};
  torch::Tensor log_std_;  // continuous actions only
};

// The built-in policy for an env, as a shared Policy.
std::shared_ptr<Policy> make_actor_critic(const envs::EnvSpec& spec,
                                          const std::vector<int64_t>& hidden, uint64_t seed);

}  // namespace dvla
