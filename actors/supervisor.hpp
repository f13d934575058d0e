#pragma once
// Supervisor: builds the actor graph of a run (inference replicas, distributor, trainer,
// samplers), watches every actor, gathers metrics into a RunStatus, and stops the graph when the
// samplers have spent their budget or any actor fails.
//
// Protocol (untyped actor):
//   status_atom   -> RunStatus
//   weights_atom  -> WeightsFrame of the trainer's latest version
//   shutdown_atom    stops every actor of the graph, then the supervisor
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "runtime/config.hpp"
#include "runtime/graph_parts.hpp"

namespace dvla::actors {

caf::actor spawn_supervisor(caf::actor_system& system, const Config& config,
                            const GraphParts& parts);

}  // namespace dvla::actors
