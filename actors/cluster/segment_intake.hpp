#pragma once
// SegmentIntake (coordinator, data plane): one node's segments on their way to the learner, bound
// to that node: it takes segments only from the process that joined as it, of its own samplers,
// of its env group's shape. What counts comes from the segment itself — its valid steps are the
// env steps, its ended episodes the episodes — never from a count the node reports: the returns
// and successes a node reports are taken for at most as many episodes as its segments ended. The
// intake passes each segment to the trainer and, once the trainer acknowledged it, the report to
// the supervisor (with the segment's bytes and policy lag, for the node's figures) — so a node's
// env steps count exactly when the learner took its segments, never for one lost on the way. The
// answer is the trainer's version: the sampler's credit, which bounds the remote hop. Refusals go
// to the coordinator, which counts them against the node.
#include <caf/actor_system.hpp>
#include <caf/node_id.hpp>

#include <string>

#include <dvla/actors/cluster/coordinator.hpp>
#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>

namespace dvla::actors {

struct SegmentIntakeSetup {
  NodeAssignment node;   // its samplers, their envs, its group
  caf::node_id process;  // the process that joined as the node
  uint32_t max_segment_steps = 0;
  trainer_actor trainer;
  supervisor_actor supervisor;
  coordinator_core_actor coordinator;
};

segment_intake_actor spawn_segment_intake(caf::actor_system& system, SegmentIntakeSetup setup);

}  // namespace dvla::actors
