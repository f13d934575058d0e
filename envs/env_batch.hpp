#pragma once
// EnvBatch: a BatchedEnv over N independent Env instances, stepped in turn on the caller's thread.
// Adds what every task needs once: the time limit, episode return and length, auto-reset.
#include <functional>
#include <memory>
#include <vector>

#include <dvla/envs/batched_env.hpp>
#include <dvla/envs/env.hpp>

namespace dvla::envs {

class EnvBatch final : public BatchedEnv {
 public:
  using Factory = std::function<std::unique_ptr<Env>()>;
  EnvBatch(const Factory& make_env, size_t n);

  const EnvSpec& spec() const override { return spec_; }
  size_t size() const override { return envs_.size(); }
  void reset(const std::vector<uint64_t>& seeds) override;
  void step(const float* actions) override;
  const BatchOutput& output() const override { return out_; }

 private:
  struct Episode {
    uint64_t seed = 0;
    float episode_return = 0;
    int length = 0;
  };
  void start_episode(size_t i, uint64_t seed);

  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<Episode> episodes_;
  EnvSpec spec_;
  BatchOutput out_;
};

}  // namespace dvla::envs
