#pragma once
// EnvDecorator: a BatchedEnv around another that forwards every call to it; a decorator (a
// simulated step latency, action clipping) overrides what it changes.
#include <memory>
#include <vector>

#include <dvla/envs/batched_env.hpp>

namespace dvla::envs {

class EnvDecorator : public BatchedEnv {
 public:
  explicit EnvDecorator(std::unique_ptr<BatchedEnv> env) : env_(std::move(env)) {}

  const EnvSpec& spec() const override { return env_->spec(); }
  size_t size() const override { return env_->size(); }
  void reset(const std::vector<uint64_t>& seeds) override { env_->reset(seeds); }
  void reset_for_evaluation(uint64_t seed) override { env_->reset_for_evaluation(seed); }
  void step(const float* actions) override { env_->step(actions); }
  const BatchOutput& output() const override { return env_->output(); }
  int64_t worker_cpu_ns() const override { return env_->worker_cpu_ns(); }

 protected:
  BatchedEnv& inner() { return *env_; }

 private:
  std::unique_ptr<BatchedEnv> env_;
};

}  // namespace dvla::envs
