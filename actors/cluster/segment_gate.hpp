#pragma once
// SegmentGate (coordinator, data plane): the door nodes reach over the data plane's connection —
// published on the data port, so that every data-plane handle a node holds (its intake) and every
// one the coordinator holds (the node's distributor) travels on that connection, never on the
// control plane's. (join, node, name) spawns the node's segment intake; (attach, name,
// distributor) attaches the node's distributor under the learner's: answered once it has the
// current weights, so that a node never acts with weights of its own.
#include <caf/actor_system.hpp>

#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

struct SegmentGateSetup {
  trainer_actor trainer;
  distributor_actor distributor;  // the learner's: the top of the weight distribution
  caf::actor supervisor;
  double timeout_s = 60;  // for a node's distributor to take the current weights
};

// Spawned linked to nothing; the intakes it spawns are linked to it (they end with it).
segment_gate_actor spawn_segment_gate(caf::actor_system& system, SegmentGateSetup setup);

}  // namespace dvla::actors
