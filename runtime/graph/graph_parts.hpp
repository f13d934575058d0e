#pragma once
// GraphParts: the user-supplied pieces of an actor graph — how to describe and build the envs and
// the policy. The actors call these; the defaults build what the Config names.
#include <cstdint>
#include <functional>
#include <memory>

#include <dvla/envs/batched_env.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

class Policy;

struct GraphParts {
  // The env's observation and action spaces (the policy is built for them).
  std::function<envs::EnvSpec()> env_spec;
  // Sampler `sampler`'s batch of `envs` envs; called on that sampler's own thread.
  std::function<std::unique_ptr<envs::BatchedEnv>(uint32_t sampler, size_t envs)> make_env;
  // One policy replica. Every call must give the same initial parameters (seed it).
  std::function<std::shared_ptr<Policy>(const envs::EnvSpec&)> make_policy;
};

// The built-in parts for `config`: its env, and the policy model.policy names, seeded with its
// seed (make_policy throws dvla::Failure for a bad model setting).
GraphParts default_graph_parts(const Config& config);

}  // namespace dvla
