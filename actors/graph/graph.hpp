#pragma once
// Graph: the actor graph of a run as its user declares it; dvla spawns and wires the actors
// (actors/graph/graph_builder.hpp) and train() runs them.
//   env groups       samplers x envs of one env each; a run may hold several groups of different
//                    envs or settings (one policy learns from all: their specs must agree)
//   inference pools  policy replicas; each group's samplers are served round-robin by the
//                    replicas of the pool it names
//   policy           the factory of every replica, the learner's and the evaluator's policy
//   learner          the algorithm config key `algo` names, looked up in `learners` (dvla's ppo
//                    and grpo, plus any the user adds)
//   stages           the user's actors on the data plane, between samplers and the learner
//   observers        the user's actors on the control plane: every version and metrics report
// The distributor (one, fanning weights out to every replica) and the evaluator (config keys
// eval.*) belong to every graph. default_graph(config) is the graph dvla-ppo runs.
//
// No CAF or LibTorch here: stages and observers are declared through
// <dvla/actors/graph/user_actors.hpp>, which is where CAF comes in.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/batched_env.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/learners/learner_registry.hpp>

namespace dvla {

struct StageSpec;     // <dvla/actors/graph/user_actors.hpp>
struct ObserverSpec;  // <dvla/actors/graph/user_actors.hpp>

struct EnvGroup {
  std::string name;  // names the group in the run's status (RunStatus::groups)
  // The env's observation and action spaces.
  std::function<envs::EnvSpec()> env_spec;
  // The batch of `envs` envs of the group's sampler `sampler` (0, 1, ... within the group),
  // called on that sampler's own thread once per env buffer.
  std::function<std::unique_ptr<envs::BatchedEnv>(uint32_t sampler, size_t envs)> make_env;
  int samplers = 2;
  int envs_per_sampler = 8;
  std::string inference_pool;  // the pool serving it; empty: the graph's first
};

struct InferencePool {
  std::string name = "inference";  // replicas are named "<name>/<index>"
  int replicas = 1;
};

struct Graph {
  std::vector<EnvGroup> env_groups;
  std::vector<InferencePool> inference_pools;
  // One policy replica; every call must give the same initial parameters (seed it).
  std::function<std::shared_ptr<Policy>(const envs::EnvSpec&)> make_policy;
  // The evaluator's env batch of `episodes` envs; empty: the first group's env.
  std::function<std::unique_ptr<envs::BatchedEnv>(size_t episodes)> make_evaluation_env;
  LearnerRegistry learners = LearnerRegistry::builtin();
  std::vector<std::shared_ptr<const StageSpec>> stages;        // in the order segments pass them
  std::vector<std::shared_ptr<const ObserverSpec>> observers;  // each gets every report
};

// The graph `config` describes, with `parts` for the env and the policy: one env group of
// config.graph.samplers x envs_per_sampler, one pool of graph.inference_replicas replicas.
Graph graph_of(const Config& config, const GraphParts& parts);
// The same with dvla's own parts (the env and policy `config` names): what dvla-ppo runs.
Graph default_graph(const Config& config);

// Whether `graph` can run with `config`: the error names the piece that cannot, and why.
Status check(const Graph& graph, const Config& config);

// What every process of a multi-node run must agree on, in words: each env group's name, envs per
// sampler and pool, and the stages in order (not sampler or replica counts: nodes differ in size).
std::string graph_shape(const Graph& graph);

}  // namespace dvla
