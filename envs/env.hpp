#pragma once
// Env: one environment instance. Implementations model the task only; time limits, episode
// bookkeeping and automatic resets are added once, by EnvBatch.
#include <cstdint>

#include <dvla/envs/env_spec.hpp>

namespace dvla::envs {

struct StepResult {
  float reward = 0;
  bool terminated = false;  // reached a terminal state (failure or success)
  bool success = false;     // the task was achieved (for tasks that have a goal)
};

class Env {
 public:
  virtual ~Env() = default;
  virtual const EnvSpec& spec() const = 0;
  // Starts an episode from `seed` (same seed, same initial state) and writes its observation.
  virtual void reset(uint64_t seed, float* observation) = 0;
  // Applies `action` (spec().action.tensor_dim() floats) and writes the next observation.
  virtual StepResult step(const float* action, float* observation) = 0;
};

}  // namespace dvla::envs
