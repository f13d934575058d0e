#pragma once
// Supervisor: the run's one typed actor that holds the graph together (protocol:
// supervisor_actor in actors/interfaces.hpp). It has the graph built (actors/graph/
// graph_builder.hpp) and its control plane spawned, watches every actor they spawn (a failed
// sampler, replica or evaluator is restarted within fault.max_restarts: GraphRestarts; any other
// failure ends the run, naming the actor), and composes what owns the run's state:
//   StatusTally       the status, from the typed reports of samplers, learner and evaluator;
//   SnapshotSchedule  which versions get a checkpoint and an evaluation;
//   ControlPlane      control rounds to every lane actor's endpoint (its own actor).
// Reports and versions are passed on to the graph's observers. Control commands from outside
// the graph: ping, pause and resume go through the control plane; checkpoint to the trainer;
// evaluate is answered once the latest weights' evaluation is in the status (after the running
// one, if any; refused when eval.episodes is 0); shutdown stops every actor, then the supervisor.
// In a multi-node run it also keeps the nodes' figures (ClusterTally), counts their env steps as
// the learner acknowledges their segments, and ends the run on that total.
#include <caf/actor_system.hpp>

#include <memory>

#include <dvla/actors/graph/graph.hpp>
#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/lanes/lane_tracer.hpp>

namespace dvla::gpu {
class MemoryPools;
}

namespace dvla::actors {

class PlaneSystems;

// `resume`, when given, is the checkpoint the run continues from; `tracer`, when given, hands
// every actor of the graph its lane track; `pools`, when given, are the memory pools its actors
// take leases on (samplers: sim; trainer and replicas: model), reported in the status. `planes`,
// when given, are the process's two actor systems: the supervisor and its control plane live in
// `system` (planes->control()), the graph in planes->data(); with config.cluster.listen set the
// supervisor is a multi-node run's coordinator (actors/cluster/).
supervisor_actor spawn_supervisor(caf::actor_system& system, const Config& config,
                                  const Graph& graph,
                                  std::shared_ptr<const Checkpoint> resume = nullptr,
                                  std::shared_ptr<LaneTracer> tracer = nullptr,
                                  std::shared_ptr<gpu::MemoryPools> pools = nullptr,
                                  PlaneSystems* planes = nullptr);

}  // namespace dvla::actors
