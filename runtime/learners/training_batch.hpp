#pragma once
// TrainingBatch: admitted trajectory segments turned into flat tensors for one learner update.
#include <ATen/core/Tensor.h>

#include <vector>

#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/versions/policy_lag.hpp>

namespace dvla {

struct TrainingBatch {
  PolicyInput inputs;              // N rows
  at::Tensor actions;              // [N, action tensor dim]
  at::Tensor log_probs;            // [N] behaviour log-probabilities
  at::Tensor values;               // [N] behaviour critic estimates
  at::Tensor advantages;           // [N]
  at::Tensor returns;              // [N] advantages + values: the critic's targets
  at::Tensor reference_log_probs;  // [N] the starting policy's, for a KL term; may be undefined
  PolicyLagCounts policy_lag;      // versions between the behaviour policies and the learner

  int64_t size() const { return inputs.state.defined() ? inputs.size() : 0; }
};

// Computes GAE per segment from the behaviour values (the observation after a truncated step is
// valued by `policy`'s critic) and concatenates the segments. Observations are read in place from
// the segments' frames and copied once, into the batch tensor.
TrainingBatch make_training_batch(const std::vector<msg::TrajectorySegment>& segments,
                                  Policy& policy, float gamma, float lambda,
                                  uint64_t learner_version);

}  // namespace dvla
