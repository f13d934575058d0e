#pragma once
// SegmentIntake (coordinator, data plane): one node's segments on their way to the learner. Each
// arrives with the env steps and episodes its sampler reported before it; the intake passes the
// segment to the trainer and, once the trainer acknowledged it, the report to the supervisor
// (with the segment's bytes and policy lag, for the node's figures) — so a node's env steps count
// exactly when the learner took its segments, never for one lost on the way. The answer is the
// trainer's version: the sampler's credit, which bounds the remote hop.
#include <caf/actor_system.hpp>

#include <string>

#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

struct SegmentIntakeSetup {
  uint32_t node = 0;
  std::string name;  // the node's
  trainer_actor trainer;
  caf::actor supervisor;
};

segment_intake_actor spawn_segment_intake(caf::actor_system& system, SegmentIntakeSetup setup);

}  // namespace dvla::actors
