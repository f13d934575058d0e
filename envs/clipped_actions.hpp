#pragma once
// Action bounds at the env boundary: continuous actions are clipped to the spec's [low, high]
// before the env steps (config key env.clip_actions). A policy's Gaussian is unbounded; the
// learner keeps the log-probability of the action as drawn, the env sees the clipped one, as
// CleanRL's and Stable-Baselines3's PPO do. (Why not a tanh-squashed Gaussian: its entropy has
// no closed form and its log-probability needs atanh of stored actions, unstable at the bounds.)
#include <memory>
#include <vector>

#include <dvla/envs/env_decorator.hpp>

namespace dvla::envs {

// `actions` (envs * space.dim floats) clipped into `clipped`, resized to fit. Non-finite values
// are passed through (check_actions names them).
void clip_actions(const ActionSpace& space, const float* actions, size_t envs,
                  std::vector<float>& clipped);

// `env` whose continuous actions are clipped to its bounds first.
class ClippedActions final : public EnvDecorator {
 public:
  using EnvDecorator::EnvDecorator;
  void step(const float* actions) override;

 private:
  std::vector<float> clipped_;  // reused from step to step
};

// `env` itself for discrete actions; else `env` wrapped in ClippedActions.
std::unique_ptr<BatchedEnv> with_clipped_actions(std::unique_ptr<BatchedEnv> env);

}  // namespace dvla::envs
