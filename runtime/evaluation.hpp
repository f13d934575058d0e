#pragma once
// Evaluation: the policy's deterministic (most likely) actions on fresh episodes, never used for
// training.
#include <cstdint>
#include <vector>

#include "envs/batched_env.hpp"
#include "messages/frame.hpp"
#include "runtime/expected.hpp"
#include "runtime/graph_parts.hpp"

namespace dvla {

class Policy;

struct EvaluationResult {
  int episodes = 0;
  double mean_return = 0;
  double mean_length = 0;
  double success_rate = 0;
  std::vector<float> returns;
};

// Runs one episode in each env of `env` from its evaluation starts (reset_for_evaluation).
EvaluationResult evaluate_policy(Policy& policy, envs::BatchedEnv& env, uint64_t seed);

// Builds a policy with `parts`, loads `weights` into it and evaluates it on
// config.run.eval_episodes fresh episodes.
Expected<EvaluationResult> evaluate_weights(const GraphParts& parts, const Config& config,
                                            const msg::WeightsFrame& weights);

}  // namespace dvla
