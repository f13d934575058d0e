#pragma once
// Generalised advantage estimation over a [T, envs] block of steps.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dvla {

struct GaeInput {
  int64_t steps = 0;
  int64_t envs = 0;
  const float* rewards = nullptr;       // [T, envs]
  const float* values = nullptr;        // [T, envs] critic estimate of each step's observation
  const uint8_t* terminated = nullptr;  // [T, envs] terminal: nothing follows
  const uint8_t* truncated = nullptr;   // [T, envs] cut by a time limit: bootstrap, then cut
  const float* truncated_values =
      nullptr;  // [T, envs] estimate of the last observation, read where truncated
  const float* bootstrap_values = nullptr;  // [envs] estimate of the observation after step T-1
  float gamma = 0.99f;
  float lambda = 0.95f;
};

// A[t] = sum_k (gamma lambda)^k delta[t+k] within an episode, with
// delta[t] = r[t] + gamma * V(next) - V[t], where V(next) is 0 after a terminal step, the value of
// the last observation after a truncated step, V[t+1] inside the segment, and the bootstrap value
// after its last step. Returns [T, envs] advantages; returns are advantages + values.
std::vector<float> generalized_advantages(const GaeInput& in);

}  // namespace dvla
