#pragma once
// EvaluationMeter: an evaluation's progress on stdout (runtime/progress/progress_meter.hpp): the
// steps of its side-by-side episodes out of the env's episode limit, and the episodes ended.
#include <optional>

#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>

namespace dvla::apps {

class EvaluationMeter {
 public:
  // The hook to pass to evaluate_weights / evaluate_policy; it refers to this meter.
  EvaluationProgressFn hook();
  void finish();

 private:
  std::optional<ProgressMeter> meter_;  // made at the first step, when the episode limit is known
};

}  // namespace dvla::apps
