#include "actors/training.hpp"

#include <torch/utils.h>
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <chrono>
#include <thread>

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

}  // namespace

Expected<TrainingResult> train(const Config& config, const GraphParts& parts,
                               const ProgressCallback& on_progress) {
  if (auto valid = validate(config); !valid) return valid.error();
  torch::set_num_threads(config.graph.torch_threads);
  set_blas_threads(config.graph.torch_threads);
  caf::actor_system_config caf_config;
  actors::register_types(caf_config);
  caf_config.set("scheduler.max-threads", static_cast<size_t>(config.graph.scheduler_threads));
  caf::actor_system system{caf_config};
  caf::scoped_actor self{system};
  auto supervisor = actors::spawn_supervisor(system, config, parts);

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
  auto weights = final_weights(self, supervisor, config.run.message_timeout_s);
  stop();
  if (!weights) return weights.error();
  if (on_progress) on_progress(*status);
  return TrainingResult{*status, *weights};
}

}  // namespace dvla
