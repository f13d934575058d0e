#pragma once
// Metrics: one typed report from one source at one instant, sent to the supervisor on the control
// plane (and passed on to the run's observers): a sampler's env steps and episodes, a learner
// update's statistics, an evaluation's result, or a refused message.
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla::msg {

// A sampler's env steps and the episodes that ended since its last report.
struct SamplingReport {
  uint32_t group = 0;  // the env group of the sampler
  uint64_t env_steps = 0;
  std::vector<double> episode_returns;
  std::vector<bool> episode_successes;  // one per return
  uint64_t segments_dropped = 0;        // by the graph's stages (their env steps count)
};

// One learner update, averaged over its gradient steps.
struct LearnerStats {
  uint64_t samples = 0;
  double policy_loss = 0, value_loss = 0, entropy = 0;
  double approx_kl = 0;      // to the behaviour (or proximal) policy
  double clip_fraction = 0;  // of samples whose ratio was clipped
  double reference_kl = 0;   // to the starting policy (with ppo.kl_coef > 0)
  double learning_rate = 0;  // of the update
  // Stale samples' importance weights: the largest, and the effective sample size as a share.
  double importance_weight_max = 1, importance_weight_ess = 1;
};

struct LearningReport {
  uint64_t version = 0;  // the version the update produced
  LearnerStats stats;
  std::vector<uint64_t> policy_lag;  // [versions behind]: samples of the update that far behind
};

// An evaluation of one policy version on the env's evaluation starts.
struct EvaluationReport {
  uint64_t version = 0;
  uint32_t episodes = 0;
  double success_rate = 0, mean_return = 0, mean_length = 0;
  std::map<std::string, double> success_per_family;  // envs with task families only
  std::string video;        // path of the GIF of its first episodes (eval.video_every); empty: none
  std::string video_error;  // why a video that was due could not be written
};

// A message an actor refused (malformed or incompatible), and why.
struct RejectionReport {
  std::string reason;
};

struct Metrics {
  std::string source;  // e.g. "sampler/1"
  uint64_t timestamp_ns = 0;
  std::variant<SamplingReport, LearningReport, EvaluationReport, RejectionReport> report;
};

MetricsFrame build(const Metrics& m);
// Every number is checked finite (and rates within [0, 1]); the error names the field.
Expected<Metrics> read(const MetricsFrame& f);

}  // namespace dvla::msg
