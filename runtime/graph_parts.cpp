#include "runtime/graph_parts.hpp"

#include "runtime/policy_factory.hpp"

namespace dvla {

GraphParts default_graph_parts(const Config& config) {
  GraphParts parts;
  const auto env = config.env;
  parts.env_spec = [env] { return envs::spec_of(env); };
  parts.make_env = [env](uint32_t, size_t n) { return envs::make_batched_env(env, n); };
  const auto model = config.model;
  const auto seed = config.run.seed;
  parts.make_policy = [model, seed](const envs::EnvSpec& spec) {
    auto policy = make_policy(model, spec, seed);
    if (!policy) throw Failure(policy.error());
    return *policy;
  };
  return parts;
}

}  // namespace dvla
