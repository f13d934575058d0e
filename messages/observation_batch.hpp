#pragma once
// ObservationBatch: the current observation of every env of one sampler, sent to inference.
#include <cstdint>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/observations.hpp>

namespace dvla::msg {

struct ObservationBatch {
  uint32_t sampler_id = 0;
  uint64_t sequence = 0;
  Observations observations;  // leading dimension [envs]

  int64_t envs() const { return observations.state.rank() ? observations.state.dim(0) : 0; }
};

ObservationFrame build(const ObservationBatch& m);
// Views into `f`: keep the frame alive while the result is used.
Expected<ObservationBatch> read(const ObservationFrame& f);

}  // namespace dvla::msg
