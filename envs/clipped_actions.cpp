#include <dvla/envs/clipped_actions.hpp>

#include <algorithm>
#include <cmath>

namespace dvla::envs {

void clip_actions(const ActionSpace& space, const float* actions, size_t envs,
                  std::vector<float>& clipped) {
  clipped.assign(actions, actions + envs * static_cast<size_t>(space.tensor_dim()));
  for (auto& a : clipped)
    if (std::isfinite(a)) a = std::clamp(a, space.low, space.high);
}

void ClippedActions::step(const float* actions) {
  clip_actions(spec().action, actions, size(), clipped_);
  inner().step(clipped_.data());
}

std::unique_ptr<BatchedEnv> with_clipped_actions(std::unique_ptr<BatchedEnv> env) {
  if (env->spec().action.is_discrete()) return env;
  return std::make_unique<ClippedActions>(std::move(env));
}

}  // namespace dvla::envs
