#include <dvla/actors/evaluation/evaluator.hpp>

#include <caf/all.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/evaluation/evaluation_metrics.hpp>
#include <dvla/runtime/platform/thread_priority.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/video/episode_video.hpp>
#include <dvla/runtime/video/gif_file.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla::actors {
namespace {

struct EvaluatorState {
  EvaluatorSetup setup;
  std::unique_ptr<envs::BatchedEnv> env;  // built on first use, on this actor's thread
  std::shared_ptr<Policy> policy;
  std::unique_ptr<FlatParameters> parameters;
  uint64_t evaluations = 0;
};

using self_ptr = evaluator_actor::stateful_pointer<EvaluatorState>;

void build(EvaluatorState& s) {
  // Before LibTorch starts its intra-op threads, which inherit the nice value.
  if (s.setup.nice > 0)
    if (auto lowered = set_this_thread_nice(s.setup.nice); !lowered)
      throw std::runtime_error(s.setup.name + ": " + lowered.error().message());
  use_intra_op_threads(s.setup.torch_threads);
  s.env = s.setup.make_env();
  if (!s.env) throw std::invalid_argument(s.setup.name + ": the env factory returned nothing");
  s.policy = s.setup.make_policy(s.env->spec());
  if (!s.policy)
    throw std::invalid_argument(s.setup.name + ": the policy factory returned nothing");
  s.parameters = std::make_unique<FlatParameters>(*s.policy, s.setup.model_lease);
}

// A video of this evaluation: every video_every-th, for envs with camera images.
std::optional<EpisodeVideo> due_video(const EvaluatorState& s) {
  if (s.setup.video_dir.empty() || s.setup.video_every <= 0 ||
      (s.evaluations - 1) % static_cast<uint64_t>(s.setup.video_every) != 0)
    return std::nullopt;
  return evaluation_video(s.env->spec(), static_cast<size_t>(s.setup.video_episodes));
}

// <video_dir>/eval_v<version>.gif, named in the report; a failure is named there instead.
void save_video(const EvaluatorState& s, const EpisodeVideo& video,
                msg::EvaluationReport& report) {
  constexpr int delay_cs = 10;  // 10 frames a second
  const auto path = s.setup.video_dir + "/" + fmt::format("eval_v{:06d}.gif", report.version);
  std::error_code ec;
  std::filesystem::create_directories(s.setup.video_dir, ec);
  if (ec) {
    report.video_error = "cannot create '" + s.setup.video_dir + "': " + ec.message();
    return;
  }
  if (auto written = write_gif_file(path, video.frames(), delay_cs); !written)
    report.video_error = written.error().message();
  else
    report.video = path;
}

caf::result<msg::MetricsFrame> evaluate(self_ptr self, const msg::WeightsFrame& frame) {
  auto& s = self->state;
  auto update = msg::read(frame);
  if (!update)
    return make_error(errc::malformed_message, s.setup.name + ": " + update.error().message());
  if (!s.env) build(s);
  if (auto loaded = s.parameters->load(*update); !loaded)
    return make_error(errc::incompatible_message, s.setup.name + ": " + loaded.error().message());
  ++s.evaluations;
  auto video = due_video(s);
  const auto result = evaluate_policy(*s.policy, *s.env, s.setup.seed, s.setup.actions,
                                      video ? &*video : nullptr);
  auto report = evaluation_report(result, update->version);
  if (video) save_video(s, *video, report);
  return msg::build(msg::Metrics{s.setup.name, steady_now_ns(), std::move(report)});
}

evaluator_actor::behavior_type evaluator(self_ptr self, EvaluatorSetup setup) {
  name_failures(self, setup.name);
  self->state.setup = std::move(setup);
  return {[self](const msg::WeightsFrame& frame) { return evaluate(self, frame); }};
}

}  // namespace

evaluator_actor spawn_evaluator(caf::actor_system& system, EvaluatorSetup setup) {
  return system.spawn<caf::detached>(evaluator, std::move(setup));
}

}  // namespace dvla::actors
