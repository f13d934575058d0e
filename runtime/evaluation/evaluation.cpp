#include <dvla/runtime/evaluation/evaluation.hpp>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/video/episode_video.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla {

namespace {

std::string family_of(const std::string& task) { return task.substr(0, task.find('/')); }

}  // namespace

EvaluationResult evaluate_policy(Policy& policy, envs::BatchedEnv& env, uint64_t seed,
                                 EvalActions actions, EpisodeVideo* video,
                                 const EvaluationProgressFn& progress) {
  EvaluationResult result;
  const int episodes = static_cast<int>(env.size());
  env.reset_for_evaluation(seed);
  const auto& spec = env.spec();
  // Each env runs one episode: its task is the one it starts with.
  const std::vector<int32_t> tasks = env.output().task_ids;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);  // for sampled actions
  const bool deterministic = actions == EvalActions::mean;
  const auto device = device_of(policy);
  std::vector<bool> done(static_cast<size_t>(episodes), false);
  int remaining = episodes;
  double length_sum = 0, successes = 0;
  result.returns.assign(static_cast<size_t>(episodes), 0.f);
  if (video) video->record(env.output(), done);
  EvaluationProgress progressed{0, spec.max_episode_steps, 0, episodes};
  while (remaining > 0) {
    const auto input = policy_input(env.output(), spec).to(device);
    const auto chosen =
        policy.act(input, deterministic, generator).actions.to(at::kCPU).contiguous();
    env.step(chosen.data_ptr<float>());
    if (video) video->record(env.output(), done);
    for (size_t i = 0; i < done.size(); ++i) {
      if (done[i] || !env.output().episode_ended(i)) continue;
      const auto& end = env.output().episode_ends[i];
      done[i] = true;
      --remaining;
      result.returns[i] = end.episode_return;
      length_sum += end.episode_length;
      successes += end.success ? 1 : 0;
      if (tasks.empty()) continue;
      const auto& name = spec.task_names.at(static_cast<size_t>(tasks[i]));
      for (auto* count : {&result.per_task[name], &result.per_family[family_of(name)]}) {
        ++count->episodes;
        count->successes += end.success;
        count->length_sum += end.episode_length;
      }
    }
    ++progressed.steps;
    progressed.episodes_ended = episodes - remaining;
    if (progress) progress(progressed);
  }
  result.episodes = episodes;
  double sum = 0;
  for (auto r : result.returns) sum += r;
  result.mean_return = sum / episodes;
  result.mean_length = length_sum / episodes;
  result.success_rate = successes / episodes;
  return result;
}

Expected<EvaluationResult> evaluate_weights(const GraphParts& parts, const Config& config,
                                            const msg::WeightsFrame& weights,
                                            const EvaluationOptions& options) {
  if (config.run.eval_episodes <= 0) return EvaluationResult{};
  auto update = msg::read(weights);
  if (!update) return update.error().within("evaluation");
  auto env = parts.make_env(0, static_cast<size_t>(config.run.eval_episodes));
  auto policy = parts.make_policy(env->spec());
  FlatParameters parameters(*policy);
  if (auto loaded = parameters.load(*update); !loaded) return loaded.error().within("evaluation");
  auto video = options.video ? evaluation_video(env->spec(), options.video_episodes)
                             : std::nullopt;
  auto result = evaluate_policy(*policy, *env, config.run.seed, config.run.eval_actions,
                                video ? &*video : nullptr, options.progress);
  if (video) *options.video = video->frames();
  return result;
}

}  // namespace dvla
