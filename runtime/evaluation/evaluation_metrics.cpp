#include <dvla/runtime/evaluation/evaluation_metrics.hpp>

#include <map>

namespace dvla {
namespace {

const std::string family_prefix = "eval_success_family/";

}  // namespace

EvaluationSummary summarize(const EvaluationResult& result, uint64_t version) {
  EvaluationSummary s;
  s.version = version;
  s.episodes = result.episodes;
  s.success_rate = result.success_rate;
  s.mean_return = result.mean_return;
  s.mean_length = result.mean_length;
  for (const auto& [family, count] : result.per_family) s.success_per_family[family] = count.rate();
  return s;
}

msg::Metrics evaluation_metrics(const EvaluationSummary& s, const std::string& source) {
  msg::Metrics m;
  m.source = source;
  m.samples = {{"eval_version", static_cast<double>(s.version)},
               {"eval_episodes", s.episodes},
               {"eval_success", s.success_rate},
               {"eval_mean_return", s.mean_return},
               {"eval_mean_length", s.mean_length}};
  for (const auto& [family, rate] : s.success_per_family)
    m.samples.emplace_back(family_prefix + family, rate);
  return m;
}

Expected<EvaluationSummary> evaluation_summary(const msg::Metrics& m) {
  std::map<std::string, double> values;
  EvaluationSummary s;
  for (const auto& [name, value] : m.samples) {
    if (name.rfind(family_prefix, 0) == 0)
      s.success_per_family[name.substr(family_prefix.size())] = value;
    else
      values[name] = value;
  }
  for (const char* name :
       {"eval_version", "eval_episodes", "eval_success", "eval_mean_return", "eval_mean_length"})
    if (!values.count(name))
      return Error("evaluation metrics from '" + m.source + "' lack '" + name + "'");
  s.version = static_cast<uint64_t>(values["eval_version"]);
  s.episodes = static_cast<int>(values["eval_episodes"]);
  s.success_rate = values["eval_success"];
  s.mean_return = values["eval_mean_return"];
  s.mean_length = values["eval_mean_length"];
  return s;
}

}  // namespace dvla
