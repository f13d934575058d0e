#pragma once
// Recording demonstrations: the scripted expert (or any controller) acting in the tabletop suite,
// its observations and actions written episode by episode to a dataset file.
#include <functional>
#include <string>

#include "envs/tabletop/tabletop_config.hpp"
#include "runtime/expected.hpp"

namespace dvla {

struct RecordingSummary {
  int episodes = 0;
  int successes = 0;
  long steps = 0;
};

// `per_task` episodes of every training task of config.suite, from training starts drawn from
// `seed`, acted by the scripted expert; written to `path` (only successful ones when
// `successes_only`). `progress` hears each finished episode.
Expected<RecordingSummary> record_scripted_demonstrations(
    const envs::tabletop::TabletopConfig& config, int per_task, uint64_t seed,
    const std::string& path, bool successes_only,
    const std::function<void(const RecordingSummary&)>& progress = {});

}  // namespace dvla
