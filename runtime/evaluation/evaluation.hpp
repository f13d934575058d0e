#pragma once
// Evaluation: the policy's most likely (deterministic) or sampled actions (eval.actions) on fresh
// episodes, never used for training.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/video/rgb_image.hpp>

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

// How far an evaluation is: all its episodes run side by side, so after `steps` batch steps
// of at most `max_steps` (the env's episode limit; 0: none), `episodes_ended` of `episodes`.
struct EvaluationProgress {
  int steps = 0;
  int max_steps = 0;
  int episodes_ended = 0;
  int episodes = 0;
};
using EvaluationProgressFn = std::function<void(const EvaluationProgress&)>;

// Runs one episode in each env of `env` from its evaluation starts (reset_for_evaluation), with
// `actions` (sampled ones drawn from `seed`); `video`, if given, records the first envs' camera
// images at every step; `progress`, if given, hears after every step.
EvaluationResult evaluate_policy(Policy& policy, envs::BatchedEnv& env, uint64_t seed,
                                 EvalActions actions = EvalActions::mean,
                                 EpisodeVideo* video = nullptr,
                                 const EvaluationProgressFn& progress = {});

// What evaluate_weights may do besides its figures.
struct EvaluationOptions {
  EvaluationProgressFn progress;  // hears after every step
  // > 0: the first this many episodes as the frames of a video (runtime/video/), into `video`;
  // it stays empty for an env without camera images.
  size_t video_episodes = 0;
  std::vector<RgbImage>* video = nullptr;
};

// Builds a policy with `parts`, loads `weights` into it and evaluates it on
// config.run.eval_episodes fresh episodes.
Expected<EvaluationResult> evaluate_weights(const GraphParts& parts, const Config& config,
                                            const msg::WeightsFrame& weights,
                                            const EvaluationOptions& options = {});

}  // namespace dvla
