#include <dvla/runtime/policies/policy_factory.hpp>

#include <dvla/runtime/policies/actor_critic.hpp>
#include <dvla/runtime/policies/null_policy.hpp>
#include <dvla/runtime/policies/torchscript_policy.hpp>
#include <dvla/runtime/policies/vla_policy.hpp>

namespace dvla {

namespace {

Expected<std::shared_ptr<Policy>> build(const ModelConfig& model, const envs::EnvSpec& spec,
                                        uint64_t seed) {
  auto kind = model.policy;
  if (kind == PolicyKind::automatic)
    kind = spec.image_size() > 0 || spec.instruction_length > 0 ? PolicyKind::vla : PolicyKind::mlp;
  switch (kind) {
    case PolicyKind::vla:
      return std::shared_ptr<Policy>(
          std::make_shared<VlaPolicy>(spec, vla_size(model.preset), seed));
    case PolicyKind::torchscript:
      return load_torchscript_policy(model.torchscript, spec);
    case PolicyKind::null:
      return std::shared_ptr<Policy>(std::make_shared<NullPolicy>(spec));
    case PolicyKind::mlp:
    case PolicyKind::automatic:
      break;
  }
  ActorCriticOptions options;
  options.hidden = model.hidden;
  options.normalize_observations = model.normalize_observations;
  options.initial_log_std = model.initial_log_std;
  return make_actor_critic(spec, options, seed);
}

}  // namespace

Expected<std::shared_ptr<Policy>> make_policy(const ModelConfig& model, const envs::EnvSpec& spec,
                                              uint64_t seed) {
  auto policy = build(model, spec, seed);
  // Every copy of the policy (trainer, replicas, evaluator) computes on model.device.
  if (policy && model.device == Device::cuda) (*policy)->to(at::Device(at::kCUDA));
  return policy;
}

}  // namespace dvla
