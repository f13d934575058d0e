#include "common/evaluation_meter.hpp"

#include <fmt/core.h>

namespace dvla::apps {

EvaluationProgressFn EvaluationMeter::hook() {
  return [this](const EvaluationProgress& p) {
    if (!meter_)
      meter_.emplace(ProgressSetup{"evaluated", "steps", static_cast<uint64_t>(p.max_steps)});
    meter_->update(static_cast<uint64_t>(p.steps),
                   fmt::format("{}/{} episodes ended", p.episodes_ended, p.episodes));
  };
}

void EvaluationMeter::finish() {
  if (meter_) meter_->finish();
}

}  // namespace dvla::apps
