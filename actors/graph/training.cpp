#include <dvla/actors/graph/training.hpp>

#include <torch/cuda.h>
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <algorithm>
#include <chrono>
#include <thread>
#include <tuple>
#include <utility>

#include <fmt/core.h>

#include <dvla/actors/atoms.hpp>
#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/control/supervisor.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/blocking_ask.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/gpu/memory_pools.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/run/evaluation_target.hpp>
#include <dvla/runtime/run/progress_watchdog.hpp>

namespace dvla {
namespace {

// How often the status is polled: finishing is noticed within this.
constexpr auto poll_interval = std::chrono::milliseconds(50);

Expected<RunStatus> poll(caf::scoped_actor& self, const actors::supervisor_actor& supervisor,
                         double timeout_s) {
  auto status = actors::ask<RunStatus>(self, supervisor, timeout_s,
                                       "the supervisor did not report", actors::status_atom::value);
  if (!status) return status.error();
  return std::get<0>(std::move(*status));
}

Expected<msg::WeightsFrame> final_weights(caf::scoped_actor& self,
                                          const actors::supervisor_actor& supervisor,
                                          double timeout_s) {
  auto weights = actors::ask<msg::WeightsFrame>(
      self, supervisor, timeout_s, "fetching the final weights failed", actors::weights_atom::value);
  if (!weights) return weights.error();
  return std::get<0>(std::move(*weights));
}

// The final checkpoint and the weights it holds (saved once a running update is complete).
Expected<std::pair<std::string, msg::WeightsFrame>> final_checkpoint(
    caf::scoped_actor& self, const actors::supervisor_actor& supervisor, double timeout_s) {
  auto saved = actors::ask<std::string, msg::WeightsFrame>(
      self, supervisor, timeout_s, "saving the final checkpoint failed",
      actors::checkpoint_atom::value);
  if (!saved) return saved.error();
  auto& [dir, weights] = *saved;
  return std::make_pair(std::move(dir), std::move(weights));
}

// Why a run that is still collecting should end now; empty: it goes on. The targets: the first
// evaluation that reached one (the supervisor keeps it, however many evaluations follow it).
std::string early_end(const RunStatus& status, const Config& config, const RunRequests* requests) {
  if (requests && requests->stop_requested()) return "stop request";
  if (config.run.max_seconds > 0 && status.wall_seconds >= config.run.max_seconds)
    return "max_seconds";
  return reached_target(status.first_at_target, config.run);
}

// Passes the evaluations `requests` asked for since `sent` to the supervisor as control commands.
// Their answers are not awaited (an evaluation takes a while); a refusal is reported by the
// supervisor itself.
void send_evaluation_requests(const actors::supervisor_actor& supervisor,
                              const RunRequests* requests, uint64_t& sent) {
  if (!requests) return;
  for (const uint64_t asked = requests->evaluations_requested(); sent < asked;)
    caf::anon_send(supervisor, msg::build(msg::ControlCommand{msg::Command::evaluate, ++sent, {}}));
}

// The watchdog found the run standing still: says at once which actors stand, in which lane and
// for how long, and saves a final checkpoint where the trainer still answers. The error to end
// the run with.
Error stalled_run(caf::scoped_actor& self, const actors::supervisor_actor& supervisor,
                  const Config& config, const LaneTracer& tracer, const Error& standstill) {
  auto why = standstill.message();
  // Half the timeout: an actor that went into its piece of work just after the run's last
  // progress has been in it a little less than the whole timeout when the watchdog fires.
  if (const auto who = describe(tracer.stalled(0.5 * config.run.message_timeout_s)); !who.empty())
    why += "; " + who;
  fmt::print(stderr, "dvla: watchdog: {}; stopping the run\n", why);
  std::fflush(stderr);
  if (config.run.logdir.empty()) return Error(why);
  if (auto saved = final_checkpoint(self, supervisor, config.run.message_timeout_s))
    return Error(why + "; the final checkpoint was saved: " + saved->first);
  else
    return Error(why + "; " + saved.error().message());
}

// Polls the supervisor until the run ends and collects its result; the graph still runs after.
// `stalled`: the watchdog ended it.
Expected<TrainingResult> await_result(caf::scoped_actor& self,
                                      const actors::supervisor_actor& supervisor,
                                      const Config& config, const ProgressCallback& on_progress,
                                      const RunRequests* requests, const LaneTracer& tracer,
                                      bool& stalled) {
  const auto progress_every = std::chrono::duration<double>(config.run.progress_interval_s);
  const double timeout_s = config.run.message_timeout_s;
  auto last_progress = std::chrono::steady_clock::now();
  // A coordinator may wait cluster.join_timeout_s for its nodes (at the start, or for a node to
  // come back when all were lost) before that is a standstill.
  ProgressWatchdog watchdog(
      config.cluster.listen.empty() ? timeout_s : timeout_s + config.cluster.join_timeout_s);
  Expected<RunStatus> status = Error("not started");
  std::string stopped_by;
  uint64_t evaluations_sent = 0;
  for (;;) {
    std::this_thread::sleep_for(poll_interval);
    send_evaluation_requests(supervisor, requests, evaluations_sent);
    status = poll(self, supervisor, timeout_s);
    if (!status || status->finished) break;
    if (stopped_by = early_end(*status, config, requests); !stopped_by.empty()) break;
    if (auto moving = watchdog.check(*status); !moving) {
      stalled = true;
      return stalled_run(self, supervisor, config, tracer, moving.error());
    }
    if (on_progress && std::chrono::steady_clock::now() - last_progress >= progress_every) {
      status->lanes = tracer.report(status->wall_seconds);
      on_progress(*status);
      last_progress = std::chrono::steady_clock::now();
    }
  }
  if (!status) return status.error();
  if (!status->failure.empty()) return Error(status->failure);
  // With a logdir the result is the final checkpoint's version, otherwise the latest published.
  TrainingResult result;
  result.stopped_by = stopped_by;
  if (config.run.logdir.empty()) {
    auto weights = final_weights(self, supervisor, timeout_s);
    if (!weights) return weights.error();
    result.weights = *weights;
  } else {
    // A final save that fails (the supervisor logged why) loses no weights: they are returned
    // without a checkpoint, and the status says the save failed.
    if (auto saved = final_checkpoint(self, supervisor, timeout_s)) {
      std::tie(result.checkpoint, result.weights) = *saved;
    } else {
      auto weights = final_weights(self, supervisor, timeout_s);
      if (!weights) return weights.error().within(saved.error().message());
      result.weights = *weights;
    }
    status = poll(self, supervisor, timeout_s);  // naming that checkpoint, or its failure
    if (!status) return status.error();
  }
  result.status = *status;
  return result;
}

// A multi-node run's nodes are told the run is over (they stop with status 0), before the
// coordinator's actors stop.
void release_nodes(caf::scoped_actor& self, const actors::supervisor_actor& supervisor,
                   const Config& config) {
  if (config.cluster.listen.empty()) return;
  // How many nodes acknowledged is not needed here: the run ends either way.
  (void)actors::ask<uint32_t>(self, supervisor, 2 * config.cluster.connection_timeout_s,
                              "releasing the nodes", actors::release_atom::value);
}

// Runs the graph until it ends, then has the supervisor stop every actor. The supervisor lives in
// the control plane's system, the graph in the data plane's (one system unless split).
Expected<TrainingResult> run_graph(actors::PlaneSystems& planes, const Config& config,
                                   const Graph& graph, const ProgressCallback& on_progress,
                                   std::shared_ptr<const Checkpoint> resume,
                                   std::shared_ptr<LaneTracer> tracer,
                                   std::shared_ptr<gpu::MemoryPools> pools,
                                   const RunRequests* requests, bool& stalled) {
  caf::scoped_actor self{planes.control()};  // counts as a running actor while it lives
  auto supervisor = actors::spawn_supervisor(planes.control(), config, graph, std::move(resume),
                                             tracer, std::move(pools), &planes);
  auto result = await_result(self, supervisor, config, on_progress, requests, *tracer, stalled);
  release_nodes(self, supervisor, config);
  self->send(supervisor, actors::shutdown_atom::value);
  return result;
}

// Waits up to `limit_s` for every actor of the run to end (the supervisor told them to).
bool actors_ended(actors::PlaneSystems& planes, double limit_s) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  const auto running = [&] {
    size_t n = planes.data().registry().running();
    if (planes.split())
      n += planes.control().registry().running() + planes.weights().registry().running();
    return n;
  };
  while (running() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// One system for a run in one process; split planes with heartbeats (and TLS, when configured)
// for a multi-node run's coordinator.
Expected<std::unique_ptr<actors::PlaneSystems>> plane_systems(const Config& config) {
  const auto threads = static_cast<size_t>(config.graph.scheduler_threads);
  const auto& c = config.cluster;
  try {
    if (c.listen.empty()) return std::make_unique<actors::PlaneSystems>(false, threads);
    return std::make_unique<actors::PlaneSystems>(true, threads, actors::NetworkOptions::of(c));
  } catch (const std::exception& e) {
    return Error(e.what());
  }
}

}  // namespace

Expected<TrainingResult> train(const Config& config, const GraphParts& parts,
                               const ProgressCallback& on_progress,
                               std::shared_ptr<const Checkpoint> resume,
                               const RunRequests* requests) {
  return train(config, graph_of(config, parts), on_progress, std::move(resume), requests);
}

Expected<TrainingResult> train(const Config& config, const Graph& graph,
                               const ProgressCallback& on_progress,
                               std::shared_ptr<const Checkpoint> resume,
                               const RunRequests* requests) {
  if (auto valid = validate(config); !valid) return valid.error();
  if (auto ok = check(graph, config); !ok) return ok.error();
  const auto tracer = std::make_shared<LaneTracer>(!config.run.trace.empty());
  // A trace file that cannot be written is found before the run, not after it.
  if (!config.run.trace.empty())
    if (auto writable = tracer->write_chrome_trace(config.run.trace); !writable)
      return writable.error();
  if (config.model.device == Device::cuda && !torch::cuda::is_available())
    return Error(
        "model.device=cuda: this LibTorch sees no CUDA device (it was built without CUDA, as "
        "Debian's is, or there is no GPU); docs/gpu.md says how to build against a CUDA LibTorch");
  // The process's two memory pools: the samplers' leases on sim, the model's on model.
  constexpr size_t MiB = size_t{1} << 20;
  auto pools = gpu::MemoryPools::create({gpu::PoolKind::host,
                                         static_cast<size_t>(config.memory.sim_mib) * MiB,
                                         static_cast<size_t>(config.memory.model_mib) * MiB});
  if (!pools) return pools.error();
  use_graph_threads(config.graph);  // lanes set their own; this is the main thread's and BLAS's
  auto planes = plane_systems(config);
  if (!planes) return planes.error();
  bool stalled = false;
  auto result = run_graph(**planes, config, graph, on_progress, std::move(resume), tracer, *pools,
                          requests, stalled);
  if (!stalled) {
    (*planes)->control().await_all_actors_done();
    (*planes)->data().await_all_actors_done();  // every track is complete
  } else if (!actors_ended(**planes, config.run.message_timeout_s)) {
    // The watchdog stopped the run: an actor stuck in a call that never returns (a hung env)
    // cannot be joined, so its threads and the systems they use are left to the process's exit
    // instead of hanging the caller.
    auto working = tracer->stalled(0);
    working.erase(std::remove_if(working.begin(), working.end(),
                                 [](const StalledActor& a) { return a.working_on.empty(); }),
                  working.end());
    fmt::print(stderr,
               "dvla: the run stopped, but not every actor ended within message_timeout_s "
               "({}): left behind\n",
               working.empty() ? std::string("none is in a piece of work") : describe(working));
    (void)planes->release();
  }
  // Written whether the run succeeded or not: the trace shows what happened.
  if (!config.run.trace.empty())
    if (auto written = tracer->write_chrome_trace(config.run.trace); !written && result)
      return written.error();
  if (!result) return result;
  result->lanes = tracer->report(result->status.wall_seconds);
  result->status.lanes = result->lanes;
  if (on_progress) on_progress(result->status);
  return result;
}

}  // namespace dvla
