#include <dvla/runtime/graph/graph_parts.hpp>

#include <optional>

#include <dvla/runtime/policies/policy_factory.hpp>
#include <dvla/runtime/weights/initial_weights.hpp>

namespace dvla {

GraphParts default_graph_parts(const Config& config) {
  GraphParts parts;
  const auto env = config.env;
  parts.env_spec = [env] { return envs::spec_of(env); };
  parts.make_env = [env](uint32_t, size_t n) { return envs::make_batched_env(env, n); };
  const auto model = config.model;
  const auto seed = config.run.seed;
  // model.init is read once here; a bad path fails the first policy build, naming it.
  std::optional<Expected<msg::WeightsFrame>> init;
  if (!model.init.empty()) init = load_initial_weights(model.init);
  parts.make_policy = [model, seed, init](const envs::EnvSpec& spec) {
    auto policy = make_policy(model, spec, seed);
    if (!policy) throw Failure(policy.error());
    if (init) {
      if (!*init) throw Failure(init->error().within("model.init '" + model.init + "'"));
      if (auto s = load_into(**policy, **init); !s)
        throw Failure(s.error().within("model.init '" + model.init + "'"));
    }
    return *policy;
  };
  return parts;
}

}  // namespace dvla
