#pragma once
// NullPolicy (`model.policy = null`): answers every observation with action zero and computes
// nothing, so that a run measures the runtime itself (dvla-bench runtime). Its one parameter
// exists only so that the learner's machinery has something to hold; it never changes anything.
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

class NullPolicy final : public Policy {
 public:
  explicit NullPolicy(const envs::EnvSpec& spec);

  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override;
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override;
  torch::Tensor value(const PolicyInput& input) override;

 private:
  int64_t action_dim_;
  torch::Tensor unused_;
};

}  // namespace dvla
