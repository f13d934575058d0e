#pragma once
// ActionBatch: inference's answer to one ObservationBatch, stamped with the policy version.
#include <cstdint>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/tensor_ref.hpp>

namespace dvla::msg {

struct ActionBatch {
  uint32_t sampler_id = 0;
  uint64_t sequence = 0;
  uint64_t policy_version = 0;
  TensorRef<float> actions;    // [envs, action_dim]
  TensorRef<float> log_probs;  // [envs]
  TensorRef<float> values;     // [envs]
};

ActionFrame build(const ActionBatch& m);
Expected<ActionBatch> read(const ActionFrame& f);

}  // namespace dvla::msg
