#include <dvla/actors/graph/graph.hpp>

#include <set>

#include <dvla/actors/graph/user_actors.hpp>

namespace dvla {
namespace {

// Whether one policy can act in both envs: the shapes it sees and the actions it gives.
std::string spec_mismatch(const envs::EnvSpec& a, const envs::EnvSpec& b) {
  if (a.observation_shape != b.observation_shape) return "observation shapes differ";
  if (a.image_shape != b.image_shape) return "image shapes differ";
  if (a.instruction_length != b.instruction_length || a.vocabulary_size != b.vocabulary_size)
    return "instructions differ";
  const auto &x = a.action, &y = b.action;
  if (x.type != y.type || x.tensor_dim() != y.tensor_dim() ||
      (x.is_discrete() && x.choices != y.choices) ||
      (!x.is_discrete() && (x.low != y.low || x.high != y.high)))
    return "action spaces differ";
  return {};
}

Status check_pools(const Graph& g) {
  if (g.inference_pools.empty()) return Error("graph: it has no inference pool");
  std::set<std::string> names;
  for (const auto& p : g.inference_pools) {
    if (p.name.empty()) return Error("graph: an inference pool has no name");
    if (!names.insert(p.name).second)
      return Error("graph: two inference pools are named '" + p.name + "'");
    if (p.replicas < 1)
      return Error("graph: inference pool '" + p.name + "' needs at least 1 replica");
  }
  return Status::ok();
}

Status check_groups(const Graph& g) {
  if (g.env_groups.empty()) return Error("graph: it has no env group");
  std::set<std::string> names, pools;
  for (const auto& p : g.inference_pools) pools.insert(p.name);
  for (const auto& e : g.env_groups) {
    const std::string group = "graph: env group '" + e.name + "'";
    if (e.name.empty()) return Error("graph: an env group has no name");
    if (!names.insert(e.name).second)
      return Error("graph: two env groups are named '" + e.name + "'");
    if (!e.env_spec || !e.make_env) return Error(group + " lacks env_spec or make_env");
    if (e.samplers < 1) return Error(group + " needs at least 1 sampler");
    if (e.envs_per_sampler < 1) return Error(group + " needs at least 1 env per sampler");
    if (!e.inference_pool.empty() && !pools.count(e.inference_pool))
      return Error(group + " names inference pool '" + e.inference_pool +
                   "', which the graph does not have");
  }
  return Status::ok();
}

Status check_user_actors(const Graph& g) {
  for (const auto& s : g.stages)
    if (!s || s->name.empty() || !s->spawn) return Error("graph: a stage lacks a name or spawn");
  for (const auto& o : g.observers)
    if (!o || o->name.empty() || !o->spawn)
      return Error("graph: an observer lacks a name or spawn");
  return Status::ok();
}

}  // namespace

Graph graph_of(const Config& config, const GraphParts& parts) {
  Graph g;
  EnvGroup group;
  group.name = config.env.name;
  group.env_spec = parts.env_spec;
  group.make_env = parts.make_env;
  group.samplers = config.graph.samplers;
  group.envs_per_sampler = config.graph.envs_per_sampler;
  g.env_groups.push_back(std::move(group));
  g.inference_pools.push_back({"inference", config.graph.inference_replicas});
  g.make_policy = parts.make_policy;
  return g;
}

Graph default_graph(const Config& config) { return graph_of(config, default_graph_parts(config)); }

Status check(const Graph& g, const Config& config) {
  if (auto s = check_pools(g); !s) return s;
  if (auto s = check_groups(g); !s) return s;
  if (auto s = check_user_actors(g); !s) return s;
  if (!g.make_policy) return Error("graph: it has no policy factory (make_policy)");
  if (auto known = g.learners.check(config.run.algo); !known)
    return known.error().within("invalid config");
  const auto first = g.env_groups.front().env_spec();
  for (size_t i = 1; i < g.env_groups.size(); ++i) {
    const auto& e = g.env_groups[i];
    if (auto m = spec_mismatch(first, e.env_spec()); !m.empty())
      return Error("graph: env group '" + e.name + "' cannot share a policy with '" +
                   g.env_groups.front().name + "': " + m);
  }
  return Status::ok();
}

std::string graph_shape(const Graph& g) {
  std::string text = "env groups:";
  for (const auto& e : g.env_groups) {
    const std::string pool = !e.inference_pool.empty()      ? e.inference_pool
                             : g.inference_pools.empty() ? std::string()
                                                         : g.inference_pools.front().name;
    text += (&e == &g.env_groups.front() ? " '" : ", '") + e.name + "' (" +
            std::to_string(e.envs_per_sampler) + " envs per sampler, pool '" + pool + "')";
  }
  text += "; stages:";
  for (const auto& s : g.stages) text += " '" + s->name + "'";
  if (g.stages.empty()) text += " none";
  return text;
}

void add_stage(Graph& graph, std::string name,
               std::function<actors::stage_actor(caf::actor_system&)> spawn) {
  graph.stages.push_back(
      std::make_shared<const StageSpec>(StageSpec{std::move(name), std::move(spawn)}));
}

void add_observer(Graph& graph, std::string name,
                  std::function<actors::observer_actor(caf::actor_system&)> spawn) {
  graph.observers.push_back(
      std::make_shared<const ObserverSpec>(ObserverSpec{std::move(name), std::move(spawn)}));
}

}  // namespace dvla
