#pragma once
// BatchedEnv: N environments stepped together, the unit a sampler owns. Episodes reset
// automatically: after a step that ends an episode, that env's observation is the first of its
// next episode, and the ended episode's last observation is kept in final_observations.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/envs/env_spec.hpp>

namespace dvla::envs {

// Bookkeeping of an episode, reported on the step that ends it.
struct EpisodeEnd {
  float episode_return = 0;
  int episode_length = 0;
  bool success = false;
};

// What the last reset or step produced, per env; buffers are reused from step to step.
struct BatchOutput {
  std::vector<float> observations;        // [envs, obs]: what the policy sees next
  std::vector<float> rewards;             // [envs]
  std::vector<uint8_t> terminated;        // [envs]
  std::vector<uint8_t> truncated;         // [envs]: cut by the time limit, not terminal
  std::vector<float> final_observations;  // [envs, obs]: valid where terminated or truncated
  std::vector<EpisodeEnd> episode_ends;   // [envs]: valid where terminated or truncated
  // Multi-modal envs only (see EnvSpec); each describes what the policy sees next.
  std::vector<uint8_t> images;              // [envs, image...]
  std::vector<uint8_t> final_images;        // [envs, image...]: valid where truncated
  std::vector<int32_t> instruction_tokens;  // [envs, instruction_length]
  std::vector<std::string> instructions;    // [envs]
  std::vector<int32_t> task_ids;            // [envs]

  bool episode_ended(size_t env) const { return terminated[env] || truncated[env]; }
  // Sizes every buffer for `envs` envs of `spec`, zeroed.
  void resize(size_t envs, const EnvSpec& spec);
};

class BatchedEnv {
 public:
  virtual ~BatchedEnv() = default;
  virtual const EnvSpec& spec() const = 0;
  virtual size_t size() const = 0;
  // Starts a fresh episode in every env; env i starts from seeds[i]. Later episodes of env i draw
  // their seeds from a stream determined by seeds[i], so a run is reproducible from its seeds.
  virtual void reset(const std::vector<uint64_t>& seeds) = 0;
  // Starts every env from an evaluation start: one training never produces, the same each time
  // for the same seed. By default, seeds from a stream no sampler uses; suites with a fixed
  // evaluation set (tabletop) use that instead.
  virtual void reset_for_evaluation(uint64_t seed);
  // Steps every env with its action: size() * spec().action.tensor_dim() floats.
  virtual void step(const float* actions) = 0;
  virtual const BatchOutput& output() const = 0;
  // CPU time the batch's own threads (env workers, renderers) have spent since it was made, so
  // whoever steps it can count that work as its own; 0 for a batch that steps on the caller's
  // thread.
  virtual int64_t worker_cpu_ns() const { return 0; }
};

// Throws std::invalid_argument naming the env and value if an action is outside `space` (a discrete
// action must be an integral index below `choices`; every value must be finite).
void check_actions(const ActionSpace& space, const float* actions, size_t envs);

// The batch index of evaluation seeds (samplers use their own index, far below this).
constexpr uint64_t evaluation_seed_stream = uint64_t{1} << 40;

// Seeds for a batch of `n` envs derived from one run seed and a batch index: distinct streams.
std::vector<uint64_t> derive_seeds(uint64_t seed, uint64_t batch_index, size_t n);
// A well-mixed successor of a seed (SplitMix64), used for the next episode of an env.
uint64_t next_seed(uint64_t seed);

}  // namespace dvla::envs
