#pragma once
// An evaluation travels from the evaluator to the supervisor as a typed Metrics report (so it
// crosses nodes like any other frame): this turns a result into one.
#include <cstdint>

#include <dvla/messages/metrics.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>

namespace dvla {

msg::EvaluationReport evaluation_report(const EvaluationResult& result, uint64_t version);

}  // namespace dvla
