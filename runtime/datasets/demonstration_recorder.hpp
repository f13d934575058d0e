#pragma once
// Recording demonstrations: the scripted expert (or any controller) acting in the tabletop suite,
// its observations and actions written episode by episode to a dataset file.
#include <functional>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/envs/tabletop/tabletop_config.hpp>

namespace dvla {

struct RecordingSummary {
  int episodes = 0;
  int successes = 0;
  long steps = 0;
};

struct RecordingOptions {
  int per_task = 10;           // episodes of every training task
  uint64_t seed = 1;           // training starts are drawn from it
  bool successes_only = true;  // write only episodes that succeeded
  // DART-style noise: the env executes the expert's action plus Gaussian noise of this standard
  // deviation on the translation and yaw dimensions, the dataset records the expert's own action.
  // The expert corrects the drift, so the demonstrations show how to recover from small errors
  // (a cloned policy drifts off the expert's states as soon as it acts).
  double action_noise = 0.0;
};

// `options.per_task` episodes of every training task of config.suite, acted by the scripted
// expert, written to `path`. `progress` hears each finished episode.
Expected<RecordingSummary> record_scripted_demonstrations(
    const envs::tabletop::TabletopConfig& config, const RecordingOptions& options,
    const std::string& path, const std::function<void(const RecordingSummary&)>& progress = {});

}  // namespace dvla
