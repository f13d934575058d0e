#pragma once
// An evaluation travels from the evaluator to the supervisor as a Metrics message (so it crosses
// nodes like any other frame): these turn a result into one and one back into a summary.
#include <string>

#include "messages/metrics.hpp"
#include "runtime/evaluation.hpp"
#include "runtime/expected.hpp"
#include "runtime/run_status.hpp"

namespace dvla {

EvaluationSummary summarize(const EvaluationResult& result, uint64_t version);
msg::Metrics evaluation_metrics(const EvaluationSummary& summary, const std::string& source);
// The error names the metric that is missing.
Expected<EvaluationSummary> evaluation_summary(const msg::Metrics& metrics);

}  // namespace dvla
