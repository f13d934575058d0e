#pragma once
// SegmentGate (coordinator, data plane): the door nodes reach over the data plane's connection —
// published on the data port, so that every data-plane handle a node holds (its intake) travels
// on that connection, never on the control plane's. (join, node, name) answers with the node's
// segment intake, which the coordinator spawns once per node and only for the process that joined
// the control plane as that node: the intake is bound to it. (Weights come on the weights plane:
// see the coordinator and the relay tree.)
#include <caf/actor_system.hpp>

#include <dvla/actors/cluster/coordinator.hpp>
#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

segment_gate_actor spawn_segment_gate(caf::actor_system& system,
                                      coordinator_core_actor coordinator);

}  // namespace dvla::actors
