#pragma once
// EnvBuffer: one buffer of a sampler's envs — its own env batch, the segment it fills and the
// state of its outstanding request. While one buffer's envs step, another's observations are with
// inference (double buffering).
#include <cstdint>
#include <memory>

#include <dvla/envs/batched_env.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>
#include <dvla/runtime/trajectories/segment_builder.hpp>

namespace dvla::actors {

struct EnvBuffer {
  uint32_t index = 0;
  std::unique_ptr<envs::BatchedEnv> env;
  std::unique_ptr<SegmentBuilder> segment;
  bool awaiting_answer = false;  // its observation request is out
  bool holds_credit = false;     // a credit is set aside for its segment until it ships
  WaitSpan waiting_for_actions;
};

}  // namespace dvla::actors
