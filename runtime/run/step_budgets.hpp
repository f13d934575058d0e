#pragma once
// How a run's env-step budget is split among its samplers: each gets a number of batched steps
// (one step of all its envs), together at least the env steps left, as evenly as the samplers'
// batch sizes allow (samplers of several env groups may step different numbers of envs).
#include <cstdint>
#include <vector>

namespace dvla {

// `envs[i]`: sampler i's envs; the answer's [i]: its batched steps. Each sampler gets the same
// number of steps, and the first ones one more while env steps remain.
std::vector<uint64_t> step_budgets(uint64_t env_steps_left, const std::vector<uint64_t>& envs);

}  // namespace dvla
