#pragma once
// TrainingBatch: admitted trajectory segments turned into flat tensors for one learner update.
#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/runtime/config/ppo_config.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/versions/policy_lag.hpp>

namespace dvla {

struct TrainingBatch {
  PolicyInput inputs;              // N rows
  at::Tensor actions;              // [N, action tensor dim]
  at::Tensor log_probs;            // [N] behaviour log-probabilities
  at::Tensor values;               // [N] critic estimates (ppo.advantage_values)
  at::Tensor advantages;           // [N]
  at::Tensor returns;              // [N] advantages + values: the critic's targets
  at::Tensor reference_log_probs;  // [N] the starting policy's, for a KL term; may be undefined
  PolicyLagCounts policy_lag;      // versions between the behaviour policies and the learner
  // [N] int64: each sample's lag in versions; undefined where the batch's maker did not say
  // (every sample is then taken to lag)
  at::Tensor sample_lags;

  int64_t size() const { return inputs.state.defined() ? inputs.size() : 0; }
};

// One segment's advantages, [T * envs] (row t * envs + e), from its rewards, behaviour values,
// ends and bootstrap values; `truncated_values` [T * envs] holds the learner critic's value of the
// last observation of each truncated step (0 elsewhere).
using AdvantageEstimator = std::function<std::vector<float>(
    const msg::TrajectorySegment& segment, const std::vector<float>& truncated_values)>;

// The batch of `segments` with the advantages `estimate` gives each (returns: advantages +
// behaviour values; every step is a sample). Observations are read in place from the segments'
// frames and copied once, into the batch tensor. This is how a LearnerAlgorithm with an advantage
// of its own builds its batch.
// With `values` = learner, `policy`'s critic values every observation first and the estimator
// sees those in the segment's `values`, and in its `bootstrap_values` where the segment carries
// its `bootstrap_observations` (otherwise they stay the behaviour policy's).
TrainingBatch make_training_batch(const std::vector<msg::TrajectorySegment>& segments,
                                  Policy& policy, uint64_t learner_version,
                                  const AdvantageEstimator& estimate,
                                  AdvantageValues values = AdvantageValues::behaviour);

// The same with GAE (runtime/trajectories/gae.hpp): PPO's batch.
TrainingBatch make_training_batch(const std::vector<msg::TrajectorySegment>& segments,
                                  Policy& policy, float gamma, float lambda,
                                  uint64_t learner_version,
                                  AdvantageValues values = AdvantageValues::behaviour);

}  // namespace dvla
