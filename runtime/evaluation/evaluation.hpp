#pragma once
// Evaluation: the policy's deterministic (most likely) actions on fresh episodes, never used for
// training.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>

namespace dvla {

class EpisodeVideo;
class Policy;

struct SuccessCount {
  int episodes = 0;
  int successes = 0;
  double length_sum = 0;
  double rate() const { return episodes ? static_cast<double>(successes) / episodes : 0.0; }
  double mean_length() const { return episodes ? length_sum / episodes : 0.0; }
};

struct EvaluationResult {
  int episodes = 0;
  double mean_return = 0;
  double mean_length = 0;
  double success_rate = 0;
  std::vector<float> returns;
  // Envs with named tasks: success by task name and by family.
  std::map<std::string, SuccessCount> per_task, per_family;
};

// Runs one episode in each env of `env` from its evaluation starts (reset_for_evaluation);
// `video`, if given, records the first envs' camera images at every step.
EvaluationResult evaluate_policy(Policy& policy, envs::BatchedEnv& env, uint64_t seed,
                                 EpisodeVideo* video = nullptr);

// Builds a policy with `parts`, loads `weights` into it and evaluates it on
// config.run.eval_episodes fresh episodes.
Expected<EvaluationResult> evaluate_weights(const GraphParts& parts, const Config& config,
                                            const msg::WeightsFrame& weights);

}  // namespace dvla
