#include <dvla/runtime/run/step_budgets.hpp>

#include <algorithm>
#include <numeric>

namespace dvla {

std::vector<uint64_t> step_budgets(uint64_t left, const std::vector<uint64_t>& envs) {
  const uint64_t per_step = std::accumulate(envs.begin(), envs.end(), uint64_t{0});
  std::vector<uint64_t> budgets(envs.size(), per_step ? left / per_step : 0);
  uint64_t remaining = per_step ? left % per_step : 0;
  for (size_t i = 0; i < envs.size() && remaining > 0; ++i) {
    ++budgets[i];
    remaining -= std::min(remaining, envs[i]);
  }
  return budgets;
}

}  // namespace dvla
