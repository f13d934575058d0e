#pragma once
// Supervised fine-tuning: fits a policy to demonstrations by maximising the log-likelihood of the
// demonstrated actions (behaviour cloning), the cold start RL then improves on.
#include <functional>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/datasets/demonstration_file.hpp>

namespace dvla {

class Policy;

struct SftConfig {
  int epochs = 40;
  int minibatch_size = 64;
  double learning_rate = 1e-3;
  uint64_t seed = 1;
  bool successes_only = true;  // learn only from episodes that succeeded
  int image_shift = 4;         // random shifts of up to this many pixels (0: none)
};

// Whether `config` can train: the error names the setting and its bounds (epochs 1..100000,
// minibatch 1..65536, a finite learning rate in (0, 1], image shift 0..16 pixels).
Status check(const SftConfig& config);

struct SftReport {
  int episodes = 0;
  int64_t samples = 0;
  std::vector<double> epoch_loss;  // mean negative log-likelihood per epoch
};

// Fits `policy` (built for `spec`) to `data`; `progress` hears each epoch's loss. Errors name a
// setting out of bounds (check) or a demonstration that does not fit the policy.
Expected<SftReport> fit_demonstrations(Policy& policy, const envs::EnvSpec& spec,
                                       const DemonstrationSet& data, const SftConfig& config,
                                       const std::function<void(int, double)>& progress = {});

}  // namespace dvla
