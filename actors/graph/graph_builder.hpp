#pragma once
// GraphBuilder's one job: spawn the actors of a Graph and wire them — inference pools, the
// distributor, the trainer with its learner algorithm, the evaluator, the user's stages and
// observers, the samplers of every env group, and a control endpoint for each lane actor. The
// supervisor calls it once and watches what it spawns; the run mode and the learner's collection
// choose the samplers' wiring here, once.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <dvla/actors/control/control_plane.hpp>
#include <dvla/actors/evaluation/evaluator.hpp>
#include <dvla/actors/inference/inference.hpp>
#include <dvla/actors/learning/trainer.hpp>
#include <dvla/actors/sampling/sampler.hpp>
#include <dvla/actors/graph/graph.hpp>
#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/lanes/lane_tracer.hpp>
#include <dvla/runtime/platform/placement_report.hpp>

namespace dvla::gpu {
class MemoryPools;
}

namespace dvla::actors {

// The handles the supervisor drives the graph through.
struct BuiltGraph {
  trainer_actor trainer;  // null on a node of a multi-node run
  distributor_actor distributor;
  evaluator_actor evaluator;  // null when eval.episodes is 0
  std::vector<sampler_actor> samplers;
  std::vector<inference_actor> replicas;  // of every pool
  std::vector<observer_actor> observers;
  std::vector<EndpointRef> endpoints;
  std::vector<std::string> group_names;  // indexed by a sampler's group
  // graph.placement = auto: the plan and what each lane thread got; null with none.
  std::shared_ptr<PlacementReport> placement;
  // What the restartable actors were spawned from (in the order of samplers and replicas), so
  // that the supervisor can spawn a failed one again (actors/control/graph_restarts.hpp).
  std::vector<SamplerSetup> sampler_setups;
  std::vector<InferenceSetup> replica_setups;
  std::optional<EvaluatorSetup> evaluator_setup;
  std::optional<TrainerSetup> trainer_setup;  // null on a node of a multi-node run
};

struct BuildContext {
  Config config;
  std::shared_ptr<const Checkpoint> resume;  // may be null
  std::shared_ptr<LaneTracer> tracer;        // may be null
  std::shared_ptr<gpu::MemoryPools> pools;   // may be null: plain heap memory
  uint64_t env_steps_done = 0;               // a resumed run's: the samplers' budgets are the rest
  caf::actor supervisor;                     // every actor reports to it
  // Called with each actor as soon as it is spawned (the supervisor links and monitors it, so
  // that an actor that fails at once, or a build that throws halfway, leaves nothing running).
  std::function<void(const std::string& name, const caf::actor&)> watch;
  // Where the control endpoints live (the control plane's actor system); null: `system`.
  caf::actor_system* control_system = nullptr;
  // Where the distributor lives (the weights plane's actor system); null: `system`.
  caf::actor_system* weights_system = nullptr;

  // A multi-node run (actors/cluster/) places samplers of one env group here: this process hosts
  // `count` of group `group`'s, with ids from `first_id`. They have no env-step budget of their
  // own: the supervisor ends the run on the total the learner acknowledged. Empty: the whole graph
  // here.
  struct SamplerPlacement {
    uint32_t first_id = 0;
    uint32_t count = 0;
    uint32_t group = 0;
  };
  std::optional<SamplerPlacement> placement;
  // Set on a node of a multi-node run, which builds only its part (inference replicas, the
  // distributor, the samplers and their endpoints): the uplink each sampler ships its segments
  // and reports to.
  std::function<uplink_actor(const std::string& sampler)> node_uplink;
};

// Spawns and wires `graph` (checked with check(graph, config) first); throws dvla::Failure or
// std::invalid_argument naming the piece that cannot be built. Nothing starts before start() (or,
// for the samplers alone, start_samplers()).
BuiltGraph build_graph(caf::actor_system& system, const Graph& graph, const BuildContext& context);

// The trainer publishes its first version; the samplers start stepping.
void start(const BuiltGraph& graph);
void start_samplers(const BuiltGraph& graph);

}  // namespace dvla::actors
