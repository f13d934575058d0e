#include <dvla/envs/env_config.hpp>

#include <stdexcept>

#include <dvla/envs/clipped_actions.hpp>
#include <dvla/envs/env_registry.hpp>

namespace dvla::envs {
namespace {

const EnvEntry& entry_of(const EnvConfig& config) {
  auto entry = EnvRegistry::builtin().find(config.name);
  if (!entry) throw std::invalid_argument(entry.error().message());
  return **entry;
}

}  // namespace

std::unique_ptr<BatchedEnv> make_batched_env(const EnvConfig& config, size_t envs) {
  auto env = entry_of(config).make(config, envs);
  return config.clip_actions ? with_clipped_actions(std::move(env)) : std::move(env);
}

EnvSpec spec_of(const EnvConfig& config) { return entry_of(config).spec(config); }

}  // namespace dvla::envs
