#pragma once
// ObservationBatch: the current observation of every env of one sampler, sent to inference.
#include <cstdint>

#include "messages/frame.hpp"
#include "messages/tensor_ref.hpp"
#include "runtime/expected.hpp"

namespace dvla::msg {

struct ObservationBatch {
  uint32_t sampler_id = 0;
  uint64_t sequence = 0;
  TensorRef<float> observations;  // [envs, obs...]
};

ObservationFrame build(const ObservationBatch& m);
// Views into `f`: keep the frame alive while the result is used.
Expected<ObservationBatch> read(const ObservationFrame& f);

}  // namespace dvla::msg
