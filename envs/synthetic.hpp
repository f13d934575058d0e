#pragma once
// A synthetic batched env for measuring the runtime itself: observations are cheap pseudo-random
// numbers, each batched step costs a configurable wall-clock latency (a sleep, like a remote
// simulator or a robot: time, but no local CPU), and the reward is learnable: 1 when the action
// equals (observation[0] > 0), else 0.
#include <cstdint>

#include <dvla/envs/batched_env.hpp>
#include <dvla/envs/step_latency.hpp>

namespace dvla::envs {

struct EnvEntry;

struct SyntheticConfig {
  int64_t observation_size = 16;
  int64_t choices = 2;
  int episode_length = 100;
  // Wall time per env step, spent sleeping (no CPU): a batched step of n envs sleeps n times
  // this in one call, so splitting a batch neither adds nor removes env time.
  int64_t step_latency_us = 0;
};

// The synthetic env's entry in the env registry (envs/env_registry.hpp): "synthetic", with its
// settings under synthetic.*.
EnvEntry synthetic_env();

class SyntheticEnv final : public BatchedEnv {
 public:
  SyntheticEnv(const SyntheticConfig& config, size_t n);

  const EnvSpec& spec() const override { return spec_; }
  size_t size() const override { return n_; }
  void reset(const std::vector<uint64_t>& seeds) override;
  void step(const float* actions) override;
  const BatchOutput& output() const override { return out_; }

 private:
  void observe(size_t env, float* out);

  SyntheticConfig config_;
  size_t n_;
  EnvSpec spec_;
  std::vector<uint64_t> state_;  // per-env generator state
  std::vector<int> length_;
  std::vector<float> return_;
  std::vector<uint64_t> seed_;
  BatchOutput out_;
  StepLatency latency_;
};

}  // namespace dvla::envs
