#pragma once
// Which environment a run uses and how it is set up: its name (looked up in the EnvRegistry,
// envs/env_registry.hpp) and the settings of dvla's envs, each struct owned by its env.
#include <memory>
#include <string>

#include <dvla/envs/batched_env.hpp>
#include <dvla/envs/cartpole.hpp>
#include <dvla/envs/synthetic.hpp>
#include <dvla/envs/tabletop/tabletop_config.hpp>

namespace dvla::envs {

struct EnvConfig {
  // An env of the registry: cartpole | pendulum | inverted_pendulum | synthetic | tabletop.
  std::string name = "cartpole";
  // Continuous actions are clipped to the env's [low, high] before it steps
  // (envs/clipped_actions.hpp); false: the env gets them as the policy drew them.
  bool clip_actions = true;
  CartPoleConfig cartpole;
  SyntheticConfig synthetic;
  tabletop::TabletopConfig tabletop;
};

// The built-in registry's env `config.name` (its actions clipped as config.clip_actions says).
// Throws std::invalid_argument naming the problem for
// an unknown env or a bad setting.
std::unique_ptr<BatchedEnv> make_batched_env(const EnvConfig& config, size_t envs);
// The spec of that env (cheaply: the tabletop suite's needs no renderer for it).
EnvSpec spec_of(const EnvConfig& config);

}  // namespace dvla::envs
