#include <dvla/runtime/policies/policy_factory.hpp>

#include <dvla/runtime/policies/actor_critic.hpp>
#include <dvla/runtime/policies/null_policy.hpp>
#include <dvla/runtime/policies/torchscript_policy.hpp>
#include <dvla/runtime/policies/vla_policy.hpp>

namespace dvla {

namespace {

Expected<std::shared_ptr<Policy>> build(const ModelConfig& model, const envs::EnvSpec& spec,
                                        uint64_t seed) {
  std::string kind = model.policy;
  if (kind == "auto") kind = spec.image_size() > 0 || spec.instruction_length > 0 ? "vla" : "mlp";
  if (kind == "mlp") return make_actor_critic(spec, model.hidden, seed);
  if (kind == "vla") {
    auto size = vla_preset(model.preset);
    if (!size) return size.error();
    return std::shared_ptr<Policy>(std::make_shared<VlaPolicy>(spec, *size, seed));
  }
  if (kind == "torchscript") return load_torchscript_policy(model.torchscript, spec);
  if (kind == "null") return std::shared_ptr<Policy>(std::make_shared<NullPolicy>(spec));
  return Error("model.policy '" + kind + "' is not available here");
}

}  // namespace

Expected<std::shared_ptr<Policy>> make_policy(const ModelConfig& model, const envs::EnvSpec& spec,
                                              uint64_t seed) {
  auto policy = build(model, spec, seed);
  // Every copy of the policy (trainer, replicas, evaluator) computes on model.device.
  if (policy && model.device == "cuda") (*policy)->to(at::Device(at::kCUDA));
  return policy;
}

}  // namespace dvla
