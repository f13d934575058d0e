#pragma once
// The evaluation targets that end a run early (stop.eval_success, stop.eval_return): which one an
// evaluation reaches. The supervisor keeps the first evaluation that reaches one, so a run whose
// evaluations finish faster than it is polled still ends on, and reports, that first one.
#include <string>

#include <dvla/messages/metrics.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

// The key of the target `evaluation` reaches ("stop.eval_success" before "stop.eval_return");
// empty: none (a target of 0 is never reached).
std::string reached_target(const msg::EvaluationReport& evaluation, const RunConfig& run);

}  // namespace dvla
