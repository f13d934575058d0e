#include <dvla/runtime/trajectories/env_observations.hpp>

namespace dvla {

msg::Observations observations_of(const envs::BatchOutput& out, const envs::EnvSpec& spec) {
  const auto envs = static_cast<int64_t>(out.rewards.size());
  auto rows = [&](std::vector<int64_t> tail) {
    tail.insert(tail.begin(), envs);
    return tail;
  };
  msg::Observations o;
  o.state = {out.observations.data(), rows(spec.observation_shape)};
  if (spec.image_size() > 0) o.images = {out.images.data(), rows(spec.image_shape)};
  if (spec.instruction_length > 0)
    o.instructions = {out.instruction_tokens.data(), rows({spec.instruction_length})};
  return o;
}

}  // namespace dvla
