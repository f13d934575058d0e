#pragma once
// TabletopBatch: the tabletop suite as a BatchedEnv. Its envs are spread over worker threads (one
// per core by default); each worker owns a GL context and a renderer per env, so envs step and
// render in parallel. Observations: proprioception as the float observation, front and wrist
// images, the instruction as text and token ids, and the task id.
#include <memory>
#include <string>
#include <vector>

#include <dvla/envs/batched_env.hpp>
#include <dvla/envs/tabletop/layout.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/envs/tabletop/tabletop_config.hpp>
#include <dvla/envs/tabletop/tabletop_env.hpp>

namespace dvla::envs {
struct EnvEntry;
}

namespace dvla::envs::tabletop {

// The suite's entry in the env registry (envs/env_registry.hpp): "tabletop", with its settings
// under tabletop.*.
EnvEntry tabletop_env();

// The spec of a batch with `config`, without building one (no GL context needed).
EnvSpec env_spec(const TabletopConfig& config);

class TabletopBatch final : public BatchedEnv {
 public:
  // Throws std::invalid_argument for a bad config and std::runtime_error naming the failure when
  // MuJoCo or EGL cannot be set up.
  TabletopBatch(const TabletopConfig& config, size_t envs);
  ~TabletopBatch() override;

  const EnvSpec& spec() const override { return spec_; }
  size_t size() const override { return envs_.size(); }
  // Env i starts a training episode drawn from seeds[i] (task from the suite, layout).
  void reset(const std::vector<uint64_t>& seeds) override;
  // Env i starts from exactly `states[i]` (evaluation states; equal states for grouped starts).
  void reset_to(const std::vector<InitialState>& states);
  // The suite's fixed evaluation states (version evaluation_set_version): env i gets training
  // task i % tasks, its (i / tasks)-th state. The seed plays no part: the set is fixed.
  void reset_for_evaluation(uint64_t seed) override;
  void step(const float* actions) override;
  const BatchOutput& output() const override { return out_; }
  int64_t worker_cpu_ns() const override;

  const Suite& suite() const { return suite_; }
  const TabletopEnv& env(size_t i) const { return *envs_[i]; }
  std::string renderer_name() const;
  int threads() const;
  // MuJoCo warnings since the batch was made, over all envs (a full contact buffer, ...).
  long warnings() const;

 private:
  class Workers;
  void observe(size_t i);  // fills env i's slice of the output
  void start(size_t i, const InitialState& s, uint64_t seed);
  void step_env(size_t i, const float* action);

  TabletopConfig config_;
  Suite suite_;
  EnvSpec spec_;
  std::vector<std::unique_ptr<TabletopEnv>> envs_;
  std::vector<uint64_t> seeds_;  // of each env's current episode, for the next one's
  std::vector<float> returns_;   // of each env's current episode
  std::vector<long> warnings_;   // per env, since the batch was made
  BatchOutput out_;
  std::unique_ptr<Workers> workers_;
};

}  // namespace dvla::envs::tabletop
