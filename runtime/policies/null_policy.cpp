#include <dvla/runtime/policies/null_policy.hpp>

#include <torch/torch.h>

namespace dvla {

NullPolicy::NullPolicy(const envs::EnvSpec& spec)
    : action_dim_(spec.action.tensor_dim()),
      unused_(register_parameter("unused", torch::zeros({1}))) {}

PolicyActions NullPolicy::act(const PolicyInput& input, bool, at::Generator&) {
  const int64_t n = input.size();
  return {torch::zeros({n, action_dim_}), torch::zeros({n}), torch::zeros({n})};
}

PolicyEvaluation NullPolicy::evaluate(const PolicyInput& input, const torch::Tensor&) {
  // Zero, yet connected to the parameter, so that a learner's backward pass has a graph.
  const auto zero = unused_.expand({input.size()}) * 0;
  return {zero, zero, zero};
}

torch::Tensor NullPolicy::value(const PolicyInput& input) { return torch::zeros({input.size()}); }

}  // namespace dvla
