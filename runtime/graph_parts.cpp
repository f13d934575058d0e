#include "runtime/graph_parts.hpp"

#include "runtime/actor_critic.hpp"

namespace dvla {

GraphParts default_graph_parts(const Config& config) {
  GraphParts parts;
  const auto env = config.env;
  parts.env_spec = [env] { return envs::spec_of(env); };
  parts.make_env = [env](uint32_t, size_t n) { return envs::make_batched_env(env, n); };
  const auto hidden = config.model.hidden;
  const auto seed = config.run.seed;
  parts.make_policy = [hidden, seed](const envs::EnvSpec& spec) {
    return make_actor_critic(spec, hidden, seed);
  };
  return parts;
}

}  // namespace dvla
