#pragma once
// TrajectorySegment: T consecutive steps of all envs of one sampler, with everything the learner
// needs to correct for the policy that collected them (behaviour log-probs and versions).
#include <cstdint>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/observations.hpp>
#include <dvla/messages/tensor_ref.hpp>

namespace dvla::msg {

struct TrajectorySegment {
  uint32_t sampler_id = 0;
  uint64_t sequence = 0;
  uint32_t first_env = 0;  // the sampler's index of env 0 here: (sampler_id, first_env + e) is a
                           // stream of steps across segments
  Observations observations;              // leading dimensions [T, envs]
  TensorRef<float> actions;               // [T, envs, action_dim]
  TensorRef<float> rewards;               // [T, envs]
  TensorRef<uint8_t> terminated;          // [T, envs]
  TensorRef<uint8_t> truncated;           // [T, envs]
  TensorRef<float> log_probs;             // [T, envs]
  TensorRef<float> values;                // [T, envs]
  TensorRef<float> bootstrap_values;      // [envs]
  std::vector<uint64_t> policy_versions;  // [T]
  Observations final_observations;        // leading dimension [k]; empty when k == 0
  std::vector<uint32_t> final_indices;    // [k] t * envs + env, ascending, each one truncated
  TensorRef<uint8_t> success;             // [T, envs]
  TensorRef<uint8_t> valid;               // [T, envs]; empty: every step is valid
  std::vector<int32_t> groups;            // [envs]; empty: no groups
  bool last = false;                      // the sampler's final segment: it sends no more
  // [envs] what each env observes after the last step, for the learner's critic; may be empty
  Observations bootstrap_observations;

  int64_t steps() const { return observations.state.rank() ? observations.state.dim(0) : 0; }
  int64_t envs() const { return observations.state.rank() > 1 ? observations.state.dim(1) : 0; }
  uint64_t oldest_version() const;
  // Steps that count (all of them unless `valid` says otherwise).
  int64_t valid_steps() const;
};

SegmentFrame build(const TrajectorySegment& m);
Expected<TrajectorySegment> read(const SegmentFrame& f);

}  // namespace dvla::msg
