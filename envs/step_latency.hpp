#pragma once
// Simulated simulator time: a wall-clock cost per env step, spent sleeping (time, but no local
// CPU, like a remote simulator or a robot), so that sampling can be made the slow lane on purpose
// (the synthetic env's synthetic.step_latency_us, CartPole's cartpole.step_latency_us).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <dvla/envs/env_decorator.hpp>

namespace dvla::envs {

// Sleeps `us_per_env_step` per env of a batched step, in one call. Sleeps overshoot (by 50-150 us
// on a VM); the overshoot is taken off the next sleep, so that on average a step costs what it
// says.
class StepLatency {
 public:
  explicit StepLatency(int64_t us_per_env_step) : us_per_env_step_(us_per_env_step) {}
  void spend(size_t envs);

 private:
  int64_t us_per_env_step_;
  int64_t oversleep_ns_ = 0;
};

// `env`, each batched step of which also spends a StepLatency (after the env stepped).
class SlowedEnv final : public EnvDecorator {
 public:
  SlowedEnv(std::unique_ptr<BatchedEnv> env, int64_t us_per_env_step)
      : EnvDecorator(std::move(env)), latency_(us_per_env_step) {}
  void step(const float* actions) override;

 private:
  StepLatency latency_;
};

}  // namespace dvla::envs
