#pragma once
// Settings of GRPO (plain data): how episodes are grouped and scored. The clipped update itself
// uses the PPO settings (ppo.clip, ppo.epochs, ppo.minibatch_size, ppo.batch_size, ppo.kl_coef).
#include <string>

namespace dvla {

struct GrpoConfig {
  int group_size = 8;              // episodes from one initial state; divides envs_per_sampler
  std::string reward = "success";  // success: 1 if the episode succeeded, else 0 (sparse);
                                   // return: the episode's summed env reward
};

}  // namespace dvla
