#pragma once
// TrajectorySegment: T consecutive steps of all envs of one sampler, with everything the learner
// needs to correct for the policy that collected them (behaviour log-probs and versions).
#include <cstdint>
#include <vector>

#include "messages/frame.hpp"
#include "messages/tensor_ref.hpp"
#include "runtime/expected.hpp"

namespace dvla::msg {

struct TrajectorySegment {
  uint32_t sampler_id = 0;
  uint64_t sequence = 0;
  TensorRef<float> observations;          // [T, envs, obs...]
  TensorRef<float> actions;               // [T, envs, action_dim]
  TensorRef<float> rewards;               // [T, envs]
  TensorRef<uint8_t> terminated;          // [T, envs]
  TensorRef<uint8_t> truncated;           // [T, envs]
  TensorRef<float> log_probs;             // [T, envs]
  TensorRef<float> values;                // [T, envs]
  TensorRef<float> bootstrap_values;      // [envs]
  std::vector<uint64_t> policy_versions;  // [T]
  TensorRef<float> final_observations;    // [k, obs...]; empty when k == 0
  std::vector<uint32_t> final_indices;    // [k] t * envs + env, ascending, each one truncated

  int64_t steps() const { return observations.rank() ? observations.dim(0) : 0; }
  int64_t envs() const { return observations.rank() > 1 ? observations.dim(1) : 0; }
  uint64_t oldest_version() const;
};

SegmentFrame build(const TrajectorySegment& m);
Expected<TrajectorySegment> read(const SegmentFrame& f);

}  // namespace dvla::msg
