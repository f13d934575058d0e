#pragma once
// Settings of GRPO (plain data): how episodes are grouped and scored. The clipped update itself
// uses the PPO settings (ppo.clip, ppo.epochs, ppo.minibatch_size, ppo.batch_size, ppo.kl_coef).
#include <array>
#include <string_view>
#include <utility>

#include <dvla/core/enum_text.hpp>

namespace dvla {

// An episode's score: success (1 if it succeeded, else 0: sparse) or its summed env reward.
enum class EpisodeScore { success, episode_return };

template <>
struct EnumNames<EpisodeScore> {
  static constexpr std::array<std::pair<EpisodeScore, std::string_view>, 2> names{
      {{EpisodeScore::success, "success"}, {EpisodeScore::episode_return, "return"}}};
};

struct GrpoConfig {
  int group_size = 8;  // episodes from one initial state; divides envs_per_sampler
  EpisodeScore reward = EpisodeScore::success;
};

}  // namespace dvla
