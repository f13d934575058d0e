#pragma once
// StatusTally: a run's status built from the typed reports of its actors — samplers' env steps
// and episodes (per env group), the learner's updates and version announcements, evaluations and
// refused messages. The supervisor owns one; it is plain data in, plain data out, so the sums are
// tested without actors.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/version_announcement.hpp>
#include <dvla/runtime/run/run_status.hpp>

namespace dvla {

// Where a resumed run's counters continue from (a checkpoint's).
struct ResumedCounters {
  uint64_t version = 0, env_steps = 0, episodes = 0, samples_trained = 0;
};

class StatusTally {
 public:
  // `groups`: the env groups' names, indexed by SamplingReport::group. A resumed run's totals go
  // on from `resumed`; each group counts from 0 in this process.
  explicit StatusTally(std::vector<std::string> groups, ResumedCounters resumed = {});

  // A report naming an env group the run does not have is refused (nothing is counted).
  Status add(const msg::SamplingReport& report);
  void add(const msg::LearningReport& report);
  void add(const msg::VersionAnnouncement& version);
  // `env_steps`, `wall_seconds`: the run's env steps and time when the evaluated version was taken.
  void add(const msg::EvaluationReport& report, uint64_t env_steps, double wall_seconds);
  void add_rejection() { ++status_.rejected_messages; }

  const RunStatus& status() const { return status_; }
  RunStatus& status() { return status_; }
  // Env steps collected in this process (a resumed run's earlier ones took their own time).
  uint64_t env_steps_here() const { return status_.env_steps - resumed_.env_steps; }

 private:
  // The last `window` finished episodes' returns and successes.
  struct Window {
    std::deque<double> returns, successes;
    void add(double episode_return, bool success);
    double mean_return() const;
    double success_rate() const;
  };

  ResumedCounters resumed_;
  RunStatus status_;
  Window run_window_;
  std::vector<Window> group_windows_;
  double lag_weighted_sum_ = 0;  // policy lag x samples, over the samples trained in this process
};

}  // namespace dvla
