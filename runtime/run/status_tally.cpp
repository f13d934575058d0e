#include <dvla/runtime/run/status_tally.hpp>

#include <algorithm>
#include <numeric>

namespace dvla {
namespace {

constexpr size_t window = 100;  // episodes in the running means

double mean(const std::deque<double>& d) {
  return d.empty() ? 0.0 : std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(d.size());
}

}  // namespace

void StatusTally::Window::add(double episode_return, bool success) {
  returns.push_back(episode_return);
  successes.push_back(success ? 1.0 : 0.0);
  if (returns.size() > window) returns.pop_front();
  if (successes.size() > window) successes.pop_front();
}

double StatusTally::Window::mean_return() const { return mean(returns); }
double StatusTally::Window::success_rate() const { return mean(successes); }

StatusTally::StatusTally(std::vector<std::string> groups, ResumedCounters resumed)
    : resumed_(resumed), group_windows_(groups.size()) {
  status_.version = resumed.version;
  status_.env_steps = resumed.env_steps;
  status_.episodes = resumed.episodes;
  status_.samples_trained = resumed.samples_trained;
  for (auto& name : groups) status_.groups.push_back({std::move(name)});
}

Status StatusTally::add(const msg::SamplingReport& r) {
  if (r.group >= status_.groups.size())
    return Error("a sampling report names env group " + std::to_string(r.group) + ", the run has " +
                 std::to_string(status_.groups.size()));
  auto& group = status_.groups[r.group];
  auto& group_window = group_windows_[r.group];
  status_.env_steps += r.env_steps;
  status_.segments_dropped += r.segments_dropped;
  group.env_steps += r.env_steps;
  for (size_t i = 0; i < r.episode_returns.size(); ++i) {
    const bool success = i < r.episode_successes.size() && r.episode_successes[i];
    run_window_.add(r.episode_returns[i], success);
    group_window.add(r.episode_returns[i], success);
  }
  status_.episodes += r.episode_returns.size();
  group.episodes += r.episode_returns.size();
  status_.mean_return = run_window_.mean_return();
  status_.success_rate = run_window_.success_rate();
  group.mean_return = group_window.mean_return();
  group.success_rate = group_window.success_rate();
  return Status::ok();
}

void StatusTally::add(const msg::LearningReport& r) {
  status_.learner = r.stats;
  auto& counts = status_.policy_lag_samples;
  if (counts.size() < r.policy_lag.size()) counts.resize(r.policy_lag.size(), 0);
  for (size_t lag = 0; lag < r.policy_lag.size(); ++lag) counts[lag] += r.policy_lag[lag];
}

void StatusTally::add(const msg::VersionAnnouncement& v) {
  const uint64_t newly_trained =
      v.samples_trained - std::min(v.samples_trained, status_.samples_trained);
  lag_weighted_sum_ += v.policy_lag_mean * static_cast<double>(newly_trained);
  status_.version = v.version;
  status_.samples_trained = v.samples_trained;
  status_.dropped_stale = v.samples_dropped;
  if (status_.samples_trained > resumed_.samples_trained)
    status_.policy_lag_mean =
        lag_weighted_sum_ / static_cast<double>(status_.samples_trained - resumed_.samples_trained);
}

void StatusTally::add(const msg::EvaluationReport& r, uint64_t env_steps, double wall_seconds) {
  static_cast<msg::EvaluationReport&>(status_.last_evaluation) = r;
  status_.last_evaluation.env_steps = env_steps;
  status_.last_evaluation.wall_seconds = wall_seconds;
  ++status_.evaluations;
}

}  // namespace dvla
