#include <dvla/actors/graph/graph_builder.hpp>

#include <caf/all.hpp>

#include <map>
#include <optional>

#include <dvla/actors/control/control_endpoint.hpp>
#include <dvla/actors/distribution/distributor.hpp>
#include <dvla/actors/evaluation/evaluator.hpp>
#include <dvla/actors/graph/user_actors.hpp>
#include <dvla/actors/inference/inference.hpp>
#include <dvla/actors/learning/trainer.hpp>
#include <dvla/actors/sampling/sampler.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/gpu/memory_pools.hpp>
#include <dvla/gpu/pool_lease.hpp>
#include <dvla/runtime/learners/learner_algorithm.hpp>
#include <dvla/runtime/platform/machine_topology.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/run/step_budgets.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla::actors {
namespace {

// What the pieces of one build share.
struct Builder {
  Builder(caf::actor_system& sys, const Graph& g, const BuildContext& c)
      : system(sys), graph(g), context(c), spec(g.env_groups.front().env_spec()) {
    make_policy = [make = g.make_policy, spec = spec] { return make(spec); };
  }

  caf::actor_system& system;
  const Graph& graph;
  const BuildContext& context;
  BuiltGraph built;
  envs::EnvSpec spec;
  std::function<std::shared_ptr<Policy>()> make_policy;
  std::shared_ptr<LearnerAlgorithm> algorithm;
  std::map<std::string, std::vector<inference_actor>> pools;  // by pool name
  std::vector<std::shared_ptr<DoubleBufferedReplica>> replica_weights;
  distributor_actor distributor;
  std::vector<std::pair<std::string, stage_actor>> stages;
  std::optional<Placement> plan;  // graph.placement = auto
  int numa_nodes = 1;             // of this machine, as hwloc saw it for the plan
  size_t samplers_placed = 0;

  const Config& config() const { return context.config; }
  bool node_part() const { return static_cast<bool>(context.node_uplink); }
  caf::actor_system& control_system() const {
    return context.control_system ? *context.control_system : system;
  }
  caf::actor_system& weights_system() const {
    return context.weights_system ? *context.weights_system : system;
  }
  // A resumed run draws fresh episodes and samples: its streams are offset by the version.
  uint64_t resumed_version() const { return context.resume ? context.resume->state.version : 0; }

  template <class Handle>
  Handle watch(Handle h, const std::string& name) {
    context.watch(name, caf::actor_cast<caf::actor>(h));
    return h;
  }

  std::shared_ptr<LaneTrack> track(const std::string& actor, Lane home) const {
    return context.tracer ? context.tracer->track(actor, home) : nullptr;
  }

  // Where a lane thread runs: `cores` of the plan (graph.placement = auto), else where the OS puts
  // it (nothing recorded).
  ThreadPlacement placement(const CpuSet& cores) const {
    if (!plan) return {};
    return {cores, built.placement};
  }

  // A lease on the model pool for `holder` (null without pools: plain heap memory).
  std::shared_ptr<gpu::PoolLease> model_lease(const std::string& holder) const {
    return context.pools ? std::make_shared<gpu::PoolLease>(context.pools->model(), holder)
                         : nullptr;
  }

  // Gives a lane actor its control endpoint, watched like the actor itself.
  template <class Handle>
  void add_endpoint(const Handle& actor, const std::string& name, std::shared_ptr<LaneTrack> t,
                    bool takes_orders = false) {
    ControlEndpointSetup e;
    e.name = name;
    e.data_actor = caf::actor_cast<caf::actor>(actor);
    e.takes_orders = takes_orders;
    e.track = std::move(t);
    e.timeout_s = config().run.message_timeout_s;
    e.supervisor = context.supervisor;
    auto handle = watch(spawn_control_endpoint(control_system(), e), name + "/control");
    built.endpoints.push_back({name, handle, takes_orders, {}});
  }
};

void build_learner(Builder& b) {
  auto made = b.graph.learners.make(b.config().run.algo, b.config());
  if (!made) throw Failure(made.error());
  b.algorithm = std::move(*made);
  const auto collection = b.algorithm->collection();
  if (!collection.episodic()) return;
  for (const auto& g : b.graph.env_groups)
    if (g.envs_per_sampler % collection.group_size != 0)
      throw Failure("invalid config: groups of " + std::to_string(collection.group_size) +
                    " episodes (" + b.config().run.algo + ") do not divide env group '" + g.name +
                    "''s " + std::to_string(g.envs_per_sampler) + " envs per sampler");
}

// graph.placement = auto on several NUMA nodes: a host replica's weight buffers go to its cores'
// node (it then copies each version there instead of sharing the received frame). Recorded, and
// a binding the OS refuses (a container without the right) leaves the buffers where they are.
void bind_replica_memory(Builder& b, DoubleBufferedReplica& replica, const std::string& name,
                         uint64_t index) {
  if (!b.plan || b.numa_nodes < 2 || b.config().model.device != Device::cpu) return;
  MemoryPlacementRecord record;
  record.holder = name;
  record.planned = b.plan->replica_numa.at(index);
  if (auto found = replica.bind_to_numa_node(record.planned))
    record.found = *found;
  else
    record.error = found.error().message();
  b.built.placement->record(std::move(record));
}

// The size of one version of the graph's policy as it crosses to the nodes: its frame in the
// wire's precision (a frame's size does not depend on its version number).
uint64_t version_bytes(Builder& b) {
  const auto policy = b.make_policy();
  auto frame = FlatParameters(*policy).to_frame(0);
  if (b.config().distribution.wire_dtype != msg::WeightPrecision::float32)
    if (auto wire = msg::with_precision(frame, b.config().distribution.wire_dtype)) frame = *wire;
  return frame.size();
}

void build_inference(Builder& b) {
  const auto& c = b.config();
  uint64_t index = 0;  // over all pools: each replica samples from a stream of its own
  for (const auto& pool : b.graph.inference_pools) {
    for (int r = 0; r < pool.replicas; ++r, ++index) {
      InferenceSetup setup;
      setup.name = pool.name + "/" + std::to_string(r);
      setup.spec = b.spec;
      // A resumed run acts with its checkpoint's weights until the first update.
      setup.weights = std::make_shared<DoubleBufferedReplica>(
          setup.name, b.make_policy,
          b.context.resume ? b.context.resume->weights : msg::WeightsFrame(),
          b.model_lease(setup.name));
      bind_replica_memory(b, *setup.weights, setup.name, index);
      setup.seed = envs::next_seed(c.run.seed + 1000 + index + b.resumed_version());
      setup.stream_per_sampler = c.run.mode == RunMode::sync;  // a sync run is reproducible
      setup.torch_threads = inference_torch_threads(c.graph);
      setup.track = b.track(setup.name, Lane::inference);
      if (b.plan) setup.placement = b.placement(b.plan->replicas.at(index));
      setup.supervisor = b.context.supervisor;
      b.replica_weights.push_back(setup.weights);
      auto replica = b.watch(spawn_inference(b.system, setup), setup.name);
      b.pools[pool.name].push_back(replica);
      b.built.replicas.push_back(replica);
      b.built.replica_setups.push_back(setup);
      b.add_endpoint(replica, setup.name, setup.track);
    }
  }
  DistributorSetup d;
  // A node's distributor takes versions in chunks from a peer: their size is checked before
  // anything is allocated. (The learner's takes whole versions from its own trainer only.)
  if (b.node_part()) d.version_bytes = version_bytes(b);
  d.replicas = b.replica_weights;
  d.track = b.track(d.name, Lane::distribution);
  d.timeout_s = b.config().run.message_timeout_s;
  d.chunk_bytes = static_cast<size_t>(b.config().distribution.chunk_mib * 1048576);
  d.chunks_in_flight = b.config().distribution.chunks_in_flight;
  d.uplink_bytes_per_s = b.config().distribution.uplink_mib_s * 1048576;
  d.wire_precision = b.config().distribution.wire_dtype;
  d.supervisor = b.context.supervisor;
  if (b.plan) d.placement = b.placement(b.plan->distributor);
  b.distributor = b.watch(spawn_distributor(b.weights_system(), d), d.name);
  b.built.distributor = b.distributor;
  b.add_endpoint(b.distributor, d.name, d.track);
}

void build_trainer(Builder& b) {
  const auto& c = b.config();
  TrainerSetup t;
  t.spec = b.spec;
  t.make_policy = b.make_policy;
  t.algorithm = b.algorithm;
  t.config = c;
  t.seed = c.run.seed;
  t.checkpoint_root = c.run.logdir;
  t.resume = b.context.resume;
  if (c.run.mode == RunMode::sync) {
    for (const auto& g : b.graph.env_groups)
      t.lock_step_samplers += static_cast<size_t>(g.samplers);
  }
  t.timeout_s = c.run.message_timeout_s;
  t.track = b.track(t.name, Lane::training);
  t.distributor = b.distributor;
  t.supervisor = b.context.supervisor;
  t.model_lease = b.model_lease(t.name);
  if (b.plan) t.placement = b.placement(b.plan->trainer);
  b.built.trainer_setup = t;
  b.built.trainer = b.watch(spawn_trainer(b.system, t), t.name);
  b.add_endpoint(b.built.trainer, t.name, t.track);
}

// Periodic evaluations, and those asked for by command (none when eval.episodes is 0).
void build_evaluator(Builder& b) {
  const auto& c = b.config();
  if (c.run.eval_episodes <= 0) return;
  EvaluatorSetup e;
  const auto episodes = static_cast<size_t>(c.run.eval_episodes);
  if (b.graph.make_evaluation_env) {
    e.make_env = [make = b.graph.make_evaluation_env, episodes] { return make(episodes); };
  } else {
    // The first group's env, built for an index none of its samplers has.
    const auto& first = b.graph.env_groups.front();
    const auto id = static_cast<uint32_t>(first.samplers);
    e.make_env = [make = first.make_env, id, episodes] { return make(id, episodes); };
  }
  e.make_policy = b.graph.make_policy;
  e.seed = c.run.seed;
  e.actions = c.run.eval_actions;
  e.torch_threads = c.graph.torch_threads;
  e.nice = c.run.eval_nice;
  if (!c.run.logdir.empty()) e.video_dir = c.run.logdir + "/videos";
  e.video_every = c.run.eval_video_every;
  e.video_episodes = c.run.eval_video_episodes;
  e.model_lease = b.model_lease(e.name);
  b.built.evaluator_setup = e;
  b.built.evaluator = b.watch(spawn_evaluator(b.system, e), e.name);
}

// The user's stages, spawned in each process that hosts samplers: a segment passes them before it
// leaves for the learner (across nodes: before the uplink), so they see it where it was made.
void build_stages(Builder& b) {
  for (const auto& stage : b.graph.stages) {
    const auto name = "stage/" + stage->name;
    b.stages.emplace_back(name, b.watch(stage->spawn(b.system), name));
  }
}

// The user's observers, beside the supervisor (they receive its reports).
void build_observers(Builder& b) {
  for (const auto& observer : b.graph.observers) {
    const auto name = "observer/" + observer->name;
    b.built.observers.push_back(b.watch(observer->spawn(b.system), name));
  }
}

// How many samplers of env group `group` this process hosts, and the first one's id.
std::pair<uint32_t, uint32_t> samplers_here(const Builder& b, size_t group, uint32_t next_id) {
  const auto& placement = b.context.placement;
  const auto all = static_cast<uint32_t>(b.graph.env_groups[group].samplers);
  if (!placement) return {next_id, all};
  return {placement->first_id, group == placement->group ? placement->count : 0};
}

void build_samplers(Builder& b) {
  const auto& c = b.config();
  const auto collection = b.algorithm->collection();
  std::vector<uint64_t> envs;
  for (const auto& g : b.graph.env_groups)
    envs.insert(envs.end(), static_cast<size_t>(g.samplers),
                static_cast<uint64_t>(g.envs_per_sampler));
  const uint64_t left =
      c.run.max_env_steps - std::min(b.context.env_steps_done, c.run.max_env_steps);
  const auto budgets = step_budgets(left, envs);
  std::map<std::string, size_t> served;  // samplers each pool serves so far (round-robin)
  uint32_t next_id = 0;                  // over all groups: segments and seeds tell them apart
  for (size_t group = 0; group < b.graph.env_groups.size(); ++group) {
    const auto& g = b.graph.env_groups[group];
    b.built.group_names.push_back(g.name);
    const auto pool_name =
        g.inference_pool.empty() ? b.graph.inference_pools.front().name : g.inference_pool;
    const auto& replicas = b.pools.at(pool_name);
    const auto [first_id, count] = samplers_here(b, group, next_id);
    next_id += static_cast<uint32_t>(g.samplers);
    for (uint32_t local = 0; local < count; ++local) {
      const uint32_t id = first_id + local;
      SamplerSetup setup;
      setup.name = "sampler/" + std::to_string(id);
      setup.id = id;
      setup.group = static_cast<uint32_t>(group);
      // Across nodes every sampler builds its envs with its run-wide id: no two share an index.
      const uint32_t env_index = b.context.placement ? id : local;
      setup.make_env = [make = g.make_env, env_index](size_t n) { return make(env_index, n); };
      setup.envs = static_cast<size_t>(g.envs_per_sampler);
      setup.env_buffers = env_buffers(c, g.envs_per_sampler, collection.group_size);
      setup.seed =
          b.resumed_version() ? envs::next_seed(c.run.seed ^ b.resumed_version()) : c.run.seed;
      setup.segment_length = c.graph.segment_length;
      setup.segments_in_flight = c.graph.segments_in_flight;
      setup.step_budget = b.context.placement ? 0 : budgets[id];
      setup.group_size = collection.group_size;
      setup.lock_step = c.run.mode == RunMode::sync;
      setup.bootstrap_observations =
          c.ppo.advantage_values == AdvantageValues::learner && collection.group_size == 0;
      setup.track = b.track(setup.name, Lane::sampling);
      if (b.plan) setup.placement = b.placement(b.plan->samplers.at(b.samplers_placed++));
      setup.nice_steps = c.graph.sampling_nice;
      if (b.context.pools)
        setup.sim_lease = std::make_shared<gpu::PoolLease>(b.context.pools->sim(), setup.name);
      setup.inference = replicas[served[pool_name]++ % replicas.size()];
      setup.replacement_timeout_s = c.run.message_timeout_s;
      setup.stages = b.stages;
      if (b.node_part()) {
        auto uplink = b.context.node_uplink(setup.name);
        setup.trainer = uplink;
        setup.supervisor = caf::actor_cast<caf::actor>(uplink);
      } else {
        setup.trainer = b.built.trainer;
        setup.supervisor = b.context.supervisor;
      }
      b.built.sampler_setups.push_back(setup);
      b.built.samplers.push_back(b.watch(spawn_sampler(b.system, setup), setup.name));
      b.add_endpoint(b.built.samplers.back(), setup.name, setup.track, /*takes_orders=*/true);
    }
  }
}

// graph.placement = auto: reads this machine's topology and plans the lanes' cores.
void plan_placement(Builder& b) {
  if (b.config().graph.placement != PlacementMode::automatic) return;
  auto machine = MachineTopology::of_this_process();
  if (!machine) throw Failure(machine.error().within("graph.placement = auto"));
  PlacementRequest request;
  uint32_t next_id = 0;
  for (size_t group = 0; group < b.graph.env_groups.size(); ++group) {
    request.samplers += static_cast<int>(samplers_here(b, group, next_id).second);
    next_id += static_cast<uint32_t>(b.graph.env_groups[group].samplers);
  }
  for (const auto& pool : b.graph.inference_pools) request.replicas += pool.replicas;
  request.trainer = !b.node_part();
  request.lanes_take_turns = b.config().run.mode == RunMode::sync;
  b.plan = dvla::plan_placement(*machine, request);
  b.numa_nodes = machine->numa_nodes();
  b.built.placement = std::make_shared<PlacementReport>(machine->text(), b.plan->text());
}

}  // namespace

BuiltGraph build_graph(caf::actor_system& system, const Graph& graph, const BuildContext& context) {
  if (auto ok = check(graph, context.config); !ok) throw Failure(ok.error());
  if (context.placement && context.placement->group >= graph.env_groups.size())
    throw Failure("this process's samplers are placed in env group " +
                  std::to_string(context.placement->group) + " but its graph has " +
                  std::to_string(graph.env_groups.size()) +
                  " env group(s): build the coordinator's graph on every node");
  Builder b(system, graph, context);
  plan_placement(b);
  build_learner(b);
  build_inference(b);
  if (!b.node_part()) {
    build_trainer(b);
    build_evaluator(b);
    build_observers(b);
  }
  build_stages(b);  // where segments are made: on every node with samplers too
  build_samplers(b);
  return std::move(b.built);
}

void start_samplers(const BuiltGraph& graph) {
  for (const auto& sampler : graph.samplers) caf::anon_send(sampler, start_atom::value);
}

void start(const BuiltGraph& graph) {
  if (graph.trainer) caf::anon_send(graph.trainer, start_atom::value);
  start_samplers(graph);
}

}  // namespace dvla::actors
