#pragma once
// SegmentGate (coordinator, data plane): the door nodes reach over the data plane's connection —
// published on the data port, so that every data-plane handle a node holds (its intake) travels
// on that connection, never on the control plane's. (join, node, name) spawns the node's segment
// intake, once per node, and only for the process that joined the control plane as that node (the
// coordinator says which): the intake is bound to it. (Weights come on the weights plane: see the
// coordinator and the relay tree.)
#include <caf/actor_system.hpp>

#include <vector>

#include <dvla/actors/cluster/coordinator.hpp>
#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>

namespace dvla::actors {

struct SegmentGateSetup {
  trainer_actor trainer;
  supervisor_actor supervisor;
  coordinator_core_actor coordinator;
  std::vector<GroupShape> groups;  // the graph's env groups: each intake checks its node's shape
};

// Spawned linked to nothing; the intakes it spawns are linked to it (they end with it).
segment_gate_actor spawn_segment_gate(caf::actor_system& system, SegmentGateSetup setup);

}  // namespace dvla::actors
