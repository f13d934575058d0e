#pragma once
// Simulated simulator time: a wall-clock cost per env step, spent sleeping (time, but no local
// CPU, like a remote simulator or a robot), so that sampling can be made the slow lane on purpose
// (the synthetic env's synthetic.step_latency_us, CartPole's cartpole.step_latency_us).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <dvla/envs/batched_env.hpp>

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
class SlowedEnv final : public BatchedEnv {
 public:
  SlowedEnv(std::unique_ptr<BatchedEnv> env, int64_t us_per_env_step)
      : env_(std::move(env)), latency_(us_per_env_step) {}

  const EnvSpec& spec() const override { return env_->spec(); }
  size_t size() const override { return env_->size(); }
  void reset(const std::vector<uint64_t>& seeds) override { env_->reset(seeds); }
  void reset_for_evaluation(uint64_t seed) override { env_->reset_for_evaluation(seed); }
  void step(const float* actions) override;
  const BatchOutput& output() const override { return env_->output(); }

 private:
  std::unique_ptr<BatchedEnv> env_;
  StepLatency latency_;
};

}  // namespace dvla::envs
