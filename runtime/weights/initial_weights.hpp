#pragma once
// Where a policy's first parameters come from when they are not drawn from the seed: a checkpoint
// directory (an SFT run's, or an RL run's) or a bare weights file (model.init).
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla {

class Policy;

// The weights of checkpoint directory `path` (or a run directory's best checkpoint), or of
// weights file `path`.
Expected<msg::WeightsFrame> load_initial_weights(const std::string& path);

// Copies `weights` into `policy`; the error names the first parameter that does not fit.
Status load_into(Policy& policy, const msg::WeightsFrame& weights);

}  // namespace dvla
