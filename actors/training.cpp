#include "actors/training.hpp"

#include <torch/utils.h>
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <chrono>
#include <thread>
#include <tuple>
#include <utility>

#include "actors/actor_support.hpp"
#include "actors/atoms.hpp"
#include "actors/frame_inspect.hpp"
#include "actors/run_status_inspect.hpp"
#include "actors/supervisor.hpp"
#include "actors/type_registry.hpp"
#include "runtime/blas_info.hpp"

namespace dvla {
namespace {

// How often the status is polled: finishing is noticed within this.
constexpr auto poll_interval = std::chrono::milliseconds(50);

Expected<RunStatus> poll(caf::scoped_actor& self, const caf::actor& supervisor, double timeout_s) {
  Expected<RunStatus> result = Error("no answer");
  self->request(supervisor, actors::timeout_of(timeout_s), actors::status_atom::value)
      .receive([&](const RunStatus& s) { result = s; },
               [&](const caf::error& e) {
                 result = Error("the supervisor did not report: " + actors::describe(e));
               });
  return result;
}

Expected<msg::WeightsFrame> final_weights(caf::scoped_actor& self, const caf::actor& supervisor,
                                          double timeout_s) {
  Expected<msg::WeightsFrame> result = Error("no answer");
  self->request(supervisor, actors::timeout_of(timeout_s), actors::weights_atom::value)
      .receive([&](const msg::WeightsFrame& w) { result = w; },
               [&](const caf::error& e) {
                 result = Error("fetching the final weights failed: " + actors::describe(e));
               });
  return result;
}

// The final checkpoint and the weights it holds (saved once a running update is complete).
Expected<std::pair<std::string, msg::WeightsFrame>> final_checkpoint(caf::scoped_actor& self,
                                                                     const caf::actor& supervisor,
                                                                     double timeout_s) {
  Expected<std::pair<std::string, msg::WeightsFrame>> result = Error("no answer");
  self->request(supervisor, actors::timeout_of(timeout_s), actors::checkpoint_atom::value)
      .receive([&](const std::string& dir,
                   const msg::WeightsFrame& w) { result = std::make_pair(dir, w); },
               [&](const caf::error& e) {
                 result = Error("saving the final checkpoint failed: " + actors::describe(e));
               });
  return result;
}

}  // namespace

Expected<TrainingResult> train(const Config& config, const GraphParts& parts,
                               const ProgressCallback& on_progress,
                               std::shared_ptr<const Checkpoint> resume) {
  if (auto valid = validate(config); !valid) return valid.error();
  torch::set_num_threads(config.graph.torch_threads);
  set_blas_threads(config.graph.torch_threads);
  caf::actor_system_config caf_config;
  actors::register_types(caf_config);
  caf_config.set("scheduler.max-threads", static_cast<size_t>(config.graph.scheduler_threads));
  caf::actor_system system{caf_config};
  caf::scoped_actor self{system};
  auto supervisor = actors::spawn_supervisor(system, config, parts, std::move(resume));

  const auto progress_every = std::chrono::duration<double>(config.run.progress_interval_s);
  auto last_progress = std::chrono::steady_clock::now();
  Expected<RunStatus> status = Error("not started");
  for (;;) {
    std::this_thread::sleep_for(poll_interval);
    status = poll(self, supervisor, config.run.message_timeout_s);
    if (!status || status->finished) break;
    if (on_progress && std::chrono::steady_clock::now() - last_progress >= progress_every) {
      on_progress(*status);
      last_progress = std::chrono::steady_clock::now();
    }
  }
  auto stop = [&] { self->send(supervisor, actors::shutdown_atom::value); };
  if (!status) return stop(), status.error();
  if (!status->failure.empty()) return stop(), Error(status->failure);
  // With a logdir the result is the final checkpoint's version, otherwise the latest published.
  TrainingResult result;
  if (config.run.logdir.empty()) {
    auto weights = final_weights(self, supervisor, config.run.message_timeout_s);
    if (!weights) return stop(), weights.error();
    result.weights = *weights;
  } else {
    auto saved = final_checkpoint(self, supervisor, config.run.message_timeout_s);
    if (!saved) return stop(), saved.error();
    std::tie(result.checkpoint, result.weights) = *saved;
    status = poll(self, supervisor, config.run.message_timeout_s);  // naming that checkpoint
    if (!status) return stop(), status.error();
  }
  result.status = *status;
  stop();
  if (on_progress) on_progress(*status);
  return result;
}

}  // namespace dvla
