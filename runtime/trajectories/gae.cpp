#include <dvla/runtime/trajectories/gae.hpp>

namespace dvla {

std::vector<float> generalized_advantages(const GaeInput& in) {
  const int64_t T = in.steps, E = in.envs;
  std::vector<float> advantages(static_cast<size_t>(T * E), 0.f);
  for (int64_t e = 0; e < E; ++e) {
    float running = 0.f;
    for (int64_t t = T - 1; t >= 0; --t) {
      const int64_t i = t * E + e;
      float next_value;
      bool cut = true;  // the episode ends at this step: no trace flows back from t + 1
      if (in.terminated[i]) {
        next_value = 0.f;
      } else if (in.truncated[i]) {
        next_value = in.truncated_values[i];
      } else {
        next_value = t + 1 < T ? in.values[i + E] : in.bootstrap_values[e];
        cut = false;
      }
      const float delta = in.rewards[i] + in.gamma * next_value - in.values[i];
      running = delta + (cut ? 0.f : in.gamma * in.lambda * running);
      advantages[static_cast<size_t>(i)] = running;
    }
  }
  return advantages;
}

}  // namespace dvla
