#include <dvla/runtime/learners/grpo.hpp>

#include <ATen/ATen.h>

#include <cmath>
#include <map>

#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/versions/staleness.hpp>

namespace dvla {
namespace {

constexpr double deviation_floor = 1e-6;

bool is_valid(const msg::TrajectorySegment& s, int64_t cell) {
  return s.valid.shape.empty() || s.valid.data[cell] != 0;
}

// Rows t * envs + e of the valid steps of informative envs, in that order.
std::vector<int64_t> training_rows(const msg::TrajectorySegment& s, const GroupAdvantages& g) {
  std::vector<int64_t> rows;
  const int64_t E = s.envs();
  for (int64_t t = 0; t < s.steps(); ++t)
    for (int64_t e = 0; e < E; ++e)
      if (g.informative[static_cast<size_t>(e)] && is_valid(s, t * E + e))
        rows.push_back(t * E + e);
  return rows;
}

GroupAdvantages advantages_of(const msg::TrajectorySegment& s, EpisodeScore reward) {
  return group_advantages(episode_scores(s, reward), s.groups);
}

}  // namespace

GroupAdvantages group_advantages(const std::vector<float>& scores,
                                 const std::vector<int32_t>& groups) {
  struct Moments {
    double n = 0, sum = 0, squares = 0;
  };
  std::map<int32_t, Moments> by_group;
  for (size_t e = 0; e < scores.size(); ++e) {
    auto& m = by_group[groups.at(e)];
    m.n += 1;
    m.sum += scores[e];
    m.squares += static_cast<double>(scores[e]) * scores[e];
  }
  GroupAdvantages out;
  out.advantage.resize(scores.size());
  out.informative.resize(scores.size());
  for (size_t e = 0; e < scores.size(); ++e) {
    const auto& m = by_group[groups[e]];
    const double mean = m.sum / m.n;
    const double deviation = std::sqrt(std::max(m.squares / m.n - mean * mean, 0.0));
    out.informative[e] = deviation > deviation_floor;
    out.advantage[e] = out.informative[e]
                           ? static_cast<float>((scores[e] - mean) / (deviation + deviation_floor))
                           : 0.f;
  }
  return out;
}

std::vector<float> episode_scores(const msg::TrajectorySegment& s, EpisodeScore reward) {
  const int64_t E = s.envs();
  std::vector<float> scores(static_cast<size_t>(E), 0.f);
  for (int64_t t = 0; t < s.steps(); ++t)
    for (int64_t e = 0; e < E; ++e) {
      const int64_t cell = t * E + e;
      if (!is_valid(s, cell)) continue;
      if (reward == EpisodeScore::success)
        scores[static_cast<size_t>(e)] =
            std::max(scores[static_cast<size_t>(e)], static_cast<float>(s.success.data[cell] != 0));
      else
        scores[static_cast<size_t>(e)] += s.rewards.data[cell];
    }
  return scores;
}

std::string grpo_mismatch(const msg::TrajectorySegment& s) {
  if (s.valid.shape.empty() || s.groups.empty())
    return "segment is not episodic (no valid mask and groups): grpo needs samplers in grpo mode";
  const int64_t E = s.envs();
  for (int64_t e = 0; e < E; ++e) {
    bool ended = false;
    for (int64_t t = 0; t < s.steps() && !ended; ++t) {
      const int64_t cell = t * E + e;
      ended = is_valid(s, cell) && (s.terminated.data[cell] || s.truncated.data[cell]);
    }
    if (!ended) return "segment env " + std::to_string(e) + "'s episode does not end in it";
  }
  return {};
}

int64_t informative_samples(const msg::TrajectorySegment& s, EpisodeScore reward) {
  return static_cast<int64_t>(training_rows(s, advantages_of(s, reward)).size());
}

TrainingBatch make_grpo_batch(const std::vector<msg::TrajectorySegment>& segments,
                              EpisodeScore reward, uint64_t learner_version) {
  std::vector<PolicyInput> inputs;
  std::vector<at::Tensor> actions, log_probs, advantages;
  PolicyLagCounts lag;
  std::vector<int64_t> sample_lags;
  int64_t samples = 0;
  for (const auto& s : segments) {
    const auto g = advantages_of(s, reward);
    auto rows = training_rows(s, g);
    if (rows.empty()) continue;
    const int64_t n = static_cast<int64_t>(rows.size()), E = s.envs();
    const auto index = at::from_blob(rows.data(), {n}, at::kLong).clone();
    inputs.push_back(policy_input(s.observations, 2).index_select(index));
    const auto all_actions = at::from_blob(const_cast<float*>(s.actions.data),
                                           {s.steps() * E, s.actions.dim(2)}, at::kFloat);
    actions.push_back(all_actions.index_select(0, index));
    const auto all_log_probs =
        at::from_blob(const_cast<float*>(s.log_probs.data), {s.steps() * E}, at::kFloat);
    log_probs.push_back(all_log_probs.index_select(0, index));
    std::vector<float> a(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      a[k] = g.advantage[static_cast<size_t>(rows[k] % E)];
      const uint64_t behind =
          StalenessBound::lag(learner_version, s.policy_versions[static_cast<size_t>(rows[k] / E)]);
      lag.add(behind, 1);
      sample_lags.push_back(static_cast<int64_t>(behind));
    }
    advantages.push_back(at::from_blob(a.data(), {n}, at::kFloat).clone());
    samples += n;
  }
  TrainingBatch b;
  if (samples == 0) return b;
  b.inputs = concatenate(inputs);
  b.actions = at::cat(actions);
  b.log_probs = at::cat(log_probs);
  b.advantages = at::cat(advantages);
  b.values = at::zeros({samples});
  b.returns = at::zeros({samples});  // no critic: with value_coef 0 these are unused
  b.policy_lag = std::move(lag);
  b.sample_lags = at::tensor(sample_lags, at::kLong);
  return b;
}

}  // namespace dvla
