#pragma once
// An evaluation travels from the evaluator to the supervisor as a Metrics message (so it crosses
// nodes like any other frame): these turn a result into one and one back into a summary.
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/run/run_status.hpp>

namespace dvla {

EvaluationSummary summarize(const EvaluationResult& result, uint64_t version);
msg::Metrics evaluation_metrics(const EvaluationSummary& summary, const std::string& source);
// The error names the metric that is missing.
Expected<EvaluationSummary> evaluation_summary(const msg::Metrics& metrics);

}  // namespace dvla
