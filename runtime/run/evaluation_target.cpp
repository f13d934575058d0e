#include <dvla/runtime/run/evaluation_target.hpp>

namespace dvla {

std::string reached_target(const msg::EvaluationReport& evaluation, const RunConfig& run) {
  if (evaluation.episodes == 0) return {};
  if (run.stop_eval_success > 0 && evaluation.success_rate >= run.stop_eval_success)
    return "stop.eval_success";
  if (run.stop_eval_return > 0 && evaluation.mean_return >= run.stop_eval_return)
    return "stop.eval_return";
  return {};
}

}  // namespace dvla
