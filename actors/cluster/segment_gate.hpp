#pragma once
// SegmentGate (coordinator, data plane): the door nodes reach over the data plane's connection —
// published on the data port, so that every data-plane handle a node holds (its intake) travels
// on that connection, never on the control plane's. (join, node, name) spawns the node's segment
// intake. (Weights come on the weights plane: see the coordinator and the relay tree.)
#include <caf/actor_system.hpp>

#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

struct SegmentGateSetup {
  trainer_actor trainer;
  caf::actor supervisor;
};

// Spawned linked to nothing; the intakes it spawns are linked to it (they end with it).
segment_gate_actor spawn_segment_gate(caf::actor_system& system, SegmentGateSetup setup);

}  // namespace dvla::actors
