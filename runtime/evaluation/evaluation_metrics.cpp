#include <dvla/runtime/evaluation/evaluation_metrics.hpp>

namespace dvla {

msg::EvaluationReport evaluation_report(const EvaluationResult& result, uint64_t version) {
  msg::EvaluationReport r;
  r.version = version;
  r.episodes = static_cast<uint32_t>(result.episodes);
  r.success_rate = result.success_rate;
  r.mean_return = result.mean_return;
  r.mean_length = result.mean_length;
  for (const auto& [family, count] : result.per_family) r.success_per_family[family] = count.rate();
  return r;
}

}  // namespace dvla
