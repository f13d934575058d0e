#pragma once
// Supervisor: builds the actor graph of a run (inference replicas, distributor, trainer,
// samplers, evaluator), watches every actor, gathers metrics into a RunStatus, has checkpoints
// saved and evaluations run every so many versions, and stops the graph when the samplers have
// spent their budget or any actor fails.
//
// Protocol (untyped actor):
//   status_atom      -> RunStatus
//   weights_atom     -> WeightsFrame of the trainer's latest version
//   checkpoint_atom  -> std::string, WeightsFrame: a checkpoint of the latest version (its
//                       directory) and its weights
//   shutdown_atom       stops every actor of the graph, then the supervisor
//   ControlFrame     -> uint64_t request id, once every actor it concerns has acknowledged: ping
//                       (every control endpoint), pause and resume (samplers), checkpoint,
//                       shutdown; evaluate: once the latest weights' evaluation is in the status
//                       (after the running one, if any; refused when eval.episodes is 0)
//
// Every lane actor has a control endpoint (actors/control/control_endpoint.hpp) that the supervisor
// pings every control.ping_interval_s; the round trips go into the status.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <memory>

#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/lanes/lane_tracer.hpp>

namespace dvla::gpu {
class MemoryPools;
}

namespace dvla::actors {

// `resume`, when given, is the checkpoint the run continues from; `tracer`, when given, hands
// every actor of the graph its lane track; `pools`, when given, are the memory pools its actors
// take leases on (samplers: sim; trainer and replicas: model), reported in the status.
caf::actor spawn_supervisor(caf::actor_system& system, const Config& config,
                            const GraphParts& parts,
                            std::shared_ptr<const Checkpoint> resume = nullptr,
                            std::shared_ptr<LaneTracer> tracer = nullptr,
                            std::shared_ptr<gpu::MemoryPools> pools = nullptr);

}  // namespace dvla::actors
