#include <dvla/runtime/learners/training_batch.hpp>

#include <ATen/ATen.h>
#include <torch/utils.h>

#include <stdexcept>
#include <string>

#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/trajectories/gae.hpp>
#include <dvla/runtime/versions/staleness.hpp>

namespace dvla {
namespace {

// A tensor over memory the caller keeps alive (a segment's frame); never written.
template <class T>
at::Tensor view_of(const msg::TensorRef<T>& t, at::ScalarType type) {
  return at::from_blob(const_cast<T*>(t.data), t.shape, type);
}

// Critic values of the last observations of truncated steps, scattered to [T * envs].
std::vector<float> truncated_values(const msg::TrajectorySegment& s, Policy& policy) {
  std::vector<float> out(static_cast<size_t>(s.steps() * s.envs()), 0.f);
  if (s.final_indices.empty()) return out;
  torch::NoGradGuard no_grad;
  const auto input = policy_input(s.final_observations, 1).to(device_of(policy));
  const auto v = policy.value(input).to(at::kCPU).contiguous();
  const float* pv = v.data_ptr<float>();
  for (size_t k = 0; k < s.final_indices.size(); ++k) out[s.final_indices[k]] = pv[k];
  return out;
}

// The critic's values of a segment's observations (`input`, T * envs rows), [T * envs].
at::Tensor critic_values(const PolicyInput& input, Policy& policy) {
  torch::NoGradGuard no_grad;
  return policy.value(input.to(device_of(policy))).to(at::kCPU).contiguous();
}

}  // namespace

TrainingBatch make_training_batch(const std::vector<msg::TrajectorySegment>& segments,
                                  Policy& policy, uint64_t learner_version,
                                  const AdvantageEstimator& estimate,
                                  AdvantageValues value_source) {
  std::vector<PolicyInput> inputs;
  std::vector<at::Tensor> actions, log_probs, values, advantages;
  PolicyLagCounts lag;
  std::vector<int64_t> sample_lags;
  for (const auto& s : segments) {
    const int64_t T = s.steps(), E = s.envs();
    inputs.push_back(policy_input(s.observations, 2));
    // The segment as the estimator sees it: with the learner's values in place of its own.
    msg::TrajectorySegment valued = s;
    at::Tensor own_values = view_of(s.values, at::kFloat).view({T * E});
    at::Tensor own_bootstrap;  // alive while `valued` points at it
    if (value_source == AdvantageValues::learner) {
      own_values = critic_values(inputs.back(), policy);
      valued.values.data = own_values.data_ptr<float>();
      if (s.bootstrap_observations.state.rank()) {
        own_bootstrap = critic_values(policy_input(s.bootstrap_observations, 1), policy);
        valued.bootstrap_values.data = own_bootstrap.data_ptr<float>();
      }
    }
    auto adv = estimate(valued, truncated_values(s, policy));
    if (static_cast<int64_t>(adv.size()) != T * E)
      throw std::invalid_argument("an advantage estimator gave " + std::to_string(adv.size()) +
                                  " advantages for a segment of " + std::to_string(T * E) +
                                  " steps");
    advantages.push_back(at::from_blob(adv.data(), {T * E}, at::kFloat).clone());
    actions.push_back(view_of(s.actions, at::kFloat).view({T * E, s.actions.dim(2)}));
    log_probs.push_back(view_of(s.log_probs, at::kFloat).view({T * E}));
    values.push_back(own_values);
    for (auto v : s.policy_versions) {  // rows t * E + e: E samples per step
      const uint64_t behind = StalenessBound::lag(learner_version, v);
      lag.add(behind, static_cast<uint64_t>(E));
      sample_lags.insert(sample_lags.end(), static_cast<size_t>(E), static_cast<int64_t>(behind));
    }
  }
  TrainingBatch b;
  if (segments.empty()) return b;
  b.inputs = concatenate(inputs);
  b.actions = at::cat(actions);
  b.log_probs = at::cat(log_probs);
  b.values = at::cat(values);
  b.advantages = at::cat(advantages);
  b.returns = b.advantages + b.values;
  b.policy_lag = std::move(lag);
  b.sample_lags = at::tensor(sample_lags, at::kLong);
  return b;
}

TrainingBatch make_training_batch(const std::vector<msg::TrajectorySegment>& segments,
                                  Policy& policy, float gamma, float lambda,
                                  uint64_t learner_version, AdvantageValues values) {
  auto gae = [gamma, lambda](const msg::TrajectorySegment& s, const std::vector<float>& final) {
    GaeInput in;
    in.steps = s.steps();
    in.envs = s.envs();
    in.rewards = s.rewards.data;
    in.values = s.values.data;
    in.terminated = s.terminated.data;
    in.truncated = s.truncated.data;
    in.truncated_values = final.data();
    in.bootstrap_values = s.bootstrap_values.data;
    in.gamma = gamma;
    in.lambda = lambda;
    return generalized_advantages(in);
  };
  return make_training_batch(segments, policy, learner_version, gae, values);
}

}  // namespace dvla
