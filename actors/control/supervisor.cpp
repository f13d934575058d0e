#include <dvla/actors/control/supervisor.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include <dvla/actors/cluster/coordinator.hpp>
#include <dvla/actors/cluster/segment_gate.hpp>
#include <dvla/actors/control/accepted_tls_connections.hpp>
#include <dvla/actors/control/control_plane.hpp>
#include <dvla/actors/control/graph_restarts.hpp>
#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/distribution/relay_door.hpp>
#include <dvla/actors/graph/graph_builder.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>
#include <dvla/gpu/memory_pools.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/version_announcement.hpp>
#include <dvla/runtime/cluster/cluster_tally.hpp>
#include <dvla/runtime/config/cluster_address.hpp>
#include <dvla/runtime/run/evaluation_target.hpp>
#include <dvla/runtime/run/snapshot_schedule.hpp>
#include <dvla/runtime/run/status_tally.hpp>

namespace dvla::actors {
namespace {

// An evaluation asked for by a control command: answered with its id once the result is in.
struct EvaluationCommand {
  caf::typed_response_promise<uint64_t> promise;
  uint64_t id = 0;
};

// Weights taken for an evaluation, and the run's env steps and seconds when they were taken.
struct TakenWeights {
  msg::WeightsFrame weights;
  std::string dir;  // the checkpoint they are; empty: none
  uint64_t env_steps = 0;
  double wall_seconds = 0;
};

struct SupervisorState {
  Config config;
  std::shared_ptr<gpu::MemoryPools> pools;  // may be null
  BuiltGraph graph;
  std::unique_ptr<GraphRestarts> restarts;  // of the graph's failed samplers, replicas, evaluator
  control_plane_actor control;
  std::vector<caf::actor> children;  // every actor of the graph, for shutdown
  std::map<caf::actor_addr, std::string> names;
  std::unique_ptr<StatusTally> tally;
  std::unique_ptr<SnapshotSchedule> schedule;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool evaluating = false;                             // one evaluation at a time
  std::vector<EvaluationCommand> evaluation_commands;  // waiting for the latest weights' turn
  std::deque<TakenWeights> evaluation_backlog;  // due while one ran, in order (eval.backlog)
  int backlog_fetching = 0;                     // weights on their way into the backlog
  size_t samplers_finished = 0;
  bool samplers_done = false;  // every sampler has finished; the run ends once evaluations allow
  bool stopping = false;
  // Requests the lost trainer did not answer, asked again once it is restarted.
  std::vector<std::function<void()>> awaiting_trainer;
  // A multi-node run (config.cluster.listen set): its nodes, and the doors they join through.
  PlaneSystems* planes = nullptr;
  std::unique_ptr<ClusterTally> cluster;
  std::vector<GroupShape> groups;  // the graph's env groups, as the coordinator places them
  std::string graph_shape;         // graph_shape() of the run's graph, which nodes must match
  coordinator_core_actor coordinator;
  segment_gate_actor gate;
};

using self_ptr = supervisor_actor::stateful_pointer<SupervisorState>;

void next_evaluation(self_ptr self);  // an evaluation's end starts the next one waiting
void finish_if_budget_spent(self_ptr self);

RunStatus& status(self_ptr self) { return self->state.tally->status(); }

double run_seconds(const SupervisorState& s) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
}

TakenWeights taken_now(self_ptr self, const msg::WeightsFrame& weights, const std::string& dir) {
  return {weights, dir, status(self).env_steps, run_seconds(self->state)};
}

// Monitored, to report how a child ended; linked, so that children end with the supervisor.
void watch(self_ptr self, const std::string& name, const caf::actor& child) {
  self->monitor(child);
  self->link_to(child);
  self->state.names[child.address()] = name;
  self->state.children.push_back(child);
}

std::vector<PoolSummary> pool_summaries(const gpu::MemoryPools* pools) {
  std::vector<PoolSummary> out;
  if (!pools) return out;
  for (const auto& p : pools->stats())
    out.push_back({p.name, p.budget, p.reserved, p.peak_reserved, p.in_use, p.peak_in_use,
                   p.largest_free_block, p.failed_requests});
  return out;
}

void stop_graph(self_ptr self) {
  auto& s = self->state;
  s.stopping = true;
  for (auto& child : s.children) self->send_exit(child, caf::exit_reason::user_shutdown);
}

void fail(self_ptr self, const std::string& why) {
  auto& s = status(self);
  if (s.failure.empty()) s.failure = why;
  s.finished = true;
  stop_graph(self);
}

// `why` an actor named `name` failed, naming it: dvla's actors name themselves in their exit
// reasons; a user's actor may not.
std::string naming(const std::string& name, const std::string& why) {
  return why.find(name) != std::string::npos ? why : name + ": " + why;
}

// A request to trainer `asked` failed with `e`. When that trainer has been restarted meanwhile,
// or is gone and may be (fault.restart_trainer), `retry` asks its successor (now or once it is in
// place) and this answers true; else the caller deals with the error.
bool retry_with_restarted_trainer(self_ptr self, const trainer_actor& asked, const caf::error& e,
                                  std::function<void()> retry) {
  auto& s = self->state;
  if (s.stopping) return false;
  if (asked != s.graph.trainer) {
    retry();
    return true;
  }
  if (!s.config.fault.restart_trainer || !actor_gone(e)) return false;
  s.awaiting_trainer.push_back(std::move(retry));
  return true;
}

bool is_trainer(const SupervisorState& s, const std::string& name) {
  return s.graph.trainer_setup && s.graph.trainer_setup->name == name;
}

// Actor `failed` (named `name`) ended with `why`: restarted when it may be (the run goes on:
// true), else the run ends naming it (false).
bool restart_or_fail(self_ptr self, const caf::actor_addr& failed, const std::string& name,
                     const std::string& why) {
  auto& s = self->state;
  const auto outcome = s.restarts ? s.restarts->on_failure(failed, name, why)
                                  : RestartOutcome{RestartOutcome::not_restartable, {}};
  switch (outcome.kind) {
    case RestartOutcome::restarted:
      fmt::print(stderr, "dvla: {}\n", outcome.text);
      status(self).restarts = s.restarts->total();
      status(self).last_restart = outcome.text;
      if (is_trainer(s, name))
        for (auto& retry : std::exchange(s.awaiting_trainer, {})) retry();
      return true;
    case RestartOutcome::replaced_before:
      return true;
    case RestartOutcome::refused:
      fail(self, outcome.text);
      return false;
    case RestartOutcome::not_restartable:
      break;
  }
  fail(self, why);
  return false;
}

// Passes a report on to every observer (the frame is shared, not copied).
template <class Frame>
void to_observers(self_ptr self, const Frame& frame) {
  for (const auto& o : self->state.graph.observers) self->send(o, frame);
}

// A save that failed (a full disk, an unwritable logdir): counted, logged; the caller decides
// whether the run goes on.
void checkpoint_failed(self_ptr self, const std::string& why) {
  auto& s = status(self);
  ++s.checkpoint_failures;
  s.checkpoint_error = why;
  fmt::print(stderr, "dvla: saving a checkpoint failed ({} so far): {}\n", s.checkpoint_failures,
             why);
}

// Has the trainer save a checkpoint of its latest version; `saved` gets its directory and
// weights, `failed` the error (counted and logged first); a trainer lost meanwhile and restarted
// is asked again. Control requests to the trainer are urgent: they overtake the segments queued
// in its mailbox.
template <class OnSaved, class OnError>
void request_checkpoint(self_ptr self, OnSaved saved, OnError failed) {
  auto& s = self->state;
  const auto asked = s.graph.trainer;
  self->request<caf::message_priority::high>(
          asked, timeout_of(s.config.run.message_timeout_s), checkpoint_atom::value,
          status(self).env_steps, status(self).episodes)
      .then(
          [self, saved](const std::string& dir, const msg::WeightsFrame& w) mutable {
            status(self).last_checkpoint = dir;
            saved(dir, w);
          },
          [self, saved, failed, asked](caf::error& e) mutable {
            if (retry_with_restarted_trainer(self, asked, e, [self, saved, failed] {
                  request_checkpoint(self, saved, failed);
                }))
              return;
            checkpoint_failed(self, describe(e));
            failed(e);
          });
}

// Answers the commands an evaluation was run for: their ids, or the error.
void answer(std::vector<EvaluationCommand>& commands, const caf::error& error = {}) {
  for (auto& c : commands) {
    if (error)
      c.promise.deliver(error);
    else
      c.promise.deliver(c.id);
  }
}

// Answers `promise` with the trainer's latest weights (a restarted trainer's, if it is lost
// meanwhile and restarted). Relayed, not delegated: a request delegated with high priority never
// reached the requester's answer handler (it timed out), so the answer is passed on by hand.
void relay_weights(self_ptr self, caf::typed_response_promise<msg::WeightsFrame> promise) {
  auto& s = self->state;
  const auto asked = s.graph.trainer;
  self->request<caf::message_priority::high>(asked, timeout_of(s.config.run.message_timeout_s),
                                             weights_atom::value)
      .then([promise](const msg::WeightsFrame& w) mutable { promise.deliver(w); },
            [self, promise, asked](caf::error& e) mutable {
              if (!retry_with_restarted_trainer(self, asked, e,
                                                [self, promise] { relay_weights(self, promise); }))
                promise.deliver(std::move(e));
            });
}

// The evaluator's answer: into the status (and, when the weights are a checkpoint's, `dir`, into
// that checkpoint) and on to the observers; an error when it is not an evaluation report.
caf::error take_evaluation(self_ptr self, const msg::MetricsFrame& frame,
                           const TakenWeights& taken) {
  auto& s = self->state;
  auto m = msg::read(frame);
  const auto* report = m ? std::get_if<msg::EvaluationReport>(&m->report) : nullptr;
  if (!report)
    return refuse(
        caf::actor_cast<caf::actor>(self), "supervisor", errc::malformed_message,
        m ? "the evaluator answered with a report that is not an evaluation" : m.error().message());
  s.tally->add(*report, taken.env_steps, taken.wall_seconds);
  auto& run = status(self);
  if (run.first_at_target.episodes == 0 && !reached_target(*report, s.config.run).empty())
    run.first_at_target = run.last_evaluation;
  to_observers(self, frame);
  if (!taken.dir.empty())
    self->send<caf::message_priority::high>(s.graph.trainer, evaluated_atom::value, taken.dir,
                                            report->success_rate, report->mean_return);
  return {};
}

// Evaluates `taken` on the evaluator (the caller has set `evaluating`); then `commands` are
// answered and the next evaluation waiting starts.
void evaluate(self_ptr self, TakenWeights taken, std::vector<EvaluationCommand> commands = {}) {
  // No timeout: an evaluation takes as long as its episodes; the evaluator is watched, so its
  // failure still ends the run with its reason, or it is restarted and evaluates again.
  const auto evaluator = self->state.graph.evaluator;
  self->request(evaluator, caf::infinite, taken.weights)
      .then(
          [self, taken, commands](const msg::MetricsFrame& frame) mutable {
            self->state.evaluating = false;
            answer(commands, take_evaluation(self, frame, taken));
            next_evaluation(self);
          },
          [self, taken, commands, evaluator](caf::error& e) mutable {
            if (self->state.stopping) return answer(commands, e);
            if (actor_gone(e) && restart_or_fail(self, evaluator.address(), "evaluator",
                                                 naming("evaluator", describe(e))))
              return evaluate(self, std::move(taken), std::move(commands));
            answer(commands, e);
            fail(self, "evaluation failed: " + describe(e));
          });
}

// Has the trainer's latest weights evaluated, then `commands` answered.
void evaluate_latest(self_ptr self, std::vector<EvaluationCommand> commands = {}) {
  auto& s = self->state;
  s.evaluating = true;
  const auto asked = s.graph.trainer;
  self->request<caf::message_priority::high>(
          asked, timeout_of(s.config.run.message_timeout_s), weights_atom::value)
      .then(
          [self, commands](const msg::WeightsFrame& weights) {
            evaluate(self, taken_now(self, weights, {}), commands);
          },
          [self, commands, asked](caf::error& e) mutable {
            auto again = [self, commands] { evaluate_latest(self, commands); };
            if (retry_with_restarted_trainer(self, asked, e, again)) return;
            answer(commands, e);
            fail(self, "fetching weights to evaluate failed: " + describe(e));
          });
}

// eval.deferred: evaluations due wait until training has ended.
bool deferring(const SupervisorState& s) { return s.config.run.eval_deferred && !s.samplers_done; }

// Evaluates `taken` now, or after those waiting when one runs or evaluations are deferred.
void evaluate_in_turn(self_ptr self, TakenWeights taken) {
  auto& s = self->state;
  if (s.stopping) return;
  if (s.evaluating || deferring(s)) {
    s.evaluation_backlog.push_back(std::move(taken));
    return;
  }
  s.evaluating = true;
  evaluate(self, std::move(taken));
}

// The backlog's way in: the trainer's latest weights, taken now, wait their turn.
void queue_latest(self_ptr self) {
  auto& s = self->state;
  ++s.backlog_fetching;
  const auto asked = s.graph.trainer;
  self->request<caf::message_priority::high>(
          asked, timeout_of(s.config.run.message_timeout_s), weights_atom::value)
      .then(
          [self](const msg::WeightsFrame& weights) {
            --self->state.backlog_fetching;
            evaluate_in_turn(self, taken_now(self, weights, {}));
          },
          [self, asked](caf::error& e) {
            --self->state.backlog_fetching;
            if (retry_with_restarted_trainer(self, asked, e, [self] { queue_latest(self); }))
              return;
            fail(self, "fetching weights to evaluate failed: " + describe(e));
          });
}

// Every sampler has finished: so has the run, once the versions waiting for evaluation are
// evaluated (with eval.backlog every version due is; otherwise an evaluation running is not
// waited for).
void finish_when_evaluated(self_ptr self) {
  auto& s = self->state;
  if (!s.samplers_done) return;
  const bool waiting = s.evaluating || !s.evaluation_backlog.empty() || s.backlog_fetching > 0;
  if (s.config.run.eval_backlog > 0 && waiting) return;
  status(self).finished = true;
}

// Once an evaluation ends: the backlog's oldest, else one evaluation of the latest weights for
// the commands waiting.
void next_evaluation(self_ptr self) {
  auto& s = self->state;
  if (s.evaluating || s.stopping) return;
  if (s.evaluation_backlog.empty() && s.evaluation_commands.empty()) {
    finish_when_evaluated(self);
    return;
  }
  if (s.evaluation_backlog.empty()) {
    evaluate_latest(self, std::exchange(s.evaluation_commands, {}));
    return;
  }
  auto taken = std::move(s.evaluation_backlog.front());
  s.evaluation_backlog.pop_front();
  s.evaluating = true;
  evaluate(self, std::move(taken));
}

// The latest weights evaluated now (`queued` false: the caller has set `evaluating`) or in turn.
void evaluate_latest_or_queue(self_ptr self, bool queued) {
  if (queued)
    queue_latest(self);
  else
    evaluate_latest(self);
}

// A checkpoint and an evaluation as the schedule has them fall due for `version`. An evaluation
// due while one runs waits its turn while the backlog (eval.backlog) has room.
void snapshot_if_due(self_ptr self, uint64_t version) {
  auto& s = self->state;
  const bool queued = s.evaluating || deferring(s);
  const auto waiting = s.evaluation_backlog.size() + static_cast<size_t>(s.backlog_fetching);
  const bool full = waiting >= static_cast<size_t>(s.config.run.eval_backlog);
  const auto due = s.schedule->on_version(version, queued && full);
  if (due.evaluation && !queued) s.evaluating = true;
  if (due.checkpoint) {
    request_checkpoint(
        self,
        [self, evaluation = due.evaluation, queued](const std::string& dir,
                                                    const msg::WeightsFrame& weights) {
          if (!evaluation) return;
          if (queued)
            evaluate_in_turn(self, taken_now(self, weights, dir));
          else
            evaluate(self, taken_now(self, weights, dir));
        },
        // The run goes on (the next save tries again); the evaluation due takes the latest weights.
        [self, evaluation = due.evaluation, queued](caf::error&) {
          if (evaluation) evaluate_latest_or_queue(self, queued);
        });
  } else if (due.evaluation) {
    evaluate_latest_or_queue(self, queued);
  }
}

// A control command from outside the graph, applied to every actor it concerns; answered with
// its request id once all have acknowledged (shutdown: at once; evaluate: once evaluated).
caf::result<uint64_t> on_command(self_ptr self, const msg::ControlFrame& frame) {
  auto& s = self->state;
  auto command = msg::read(frame);
  if (!command)
    return refuse(caf::actor_cast<caf::actor>(self), "supervisor", errc::malformed_message,
                  command.error().message());
  const uint64_t id = command->request_id;
  const auto kind = command->kind;
  if (kind == msg::Command::shutdown) {
    stop_graph(self);
    self->quit();
    return id;
  }
  if (!s.graph.trainer) return make_error(errc::bad_setup, "the graph was not built");
  if (kind == msg::Command::evaluate && !s.graph.evaluator)
    return refuse(caf::actor_cast<caf::actor>(self), "supervisor", errc::bad_setup,
                  "an evaluation was asked for, but eval.episodes is 0: there is nothing to "
                  "evaluate on");
  auto promise = self->make_response_promise<uint64_t>();
  if (kind == msg::Command::evaluate) {
    s.evaluation_commands.push_back({promise, id});
    next_evaluation(self);
  } else if (kind == msg::Command::checkpoint) {
    request_checkpoint(
        self,
        [promise, id](const std::string&, const msg::WeightsFrame&) mutable {
          promise.deliver(id);
        },
        [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  } else {  // ping, pause, resume: a round of the control plane
    self->request(s.control, caf::infinite, frame)
        .then([promise](uint64_t answered) mutable { promise.deliver(answered); },
              [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  }
  return promise;
}

void on_metrics(self_ptr self, const msg::MetricsFrame& frame) {
  auto& s = self->state;
  auto m = msg::read(frame);
  if (!m)
    return report_rejected(caf::actor_cast<caf::actor>(self), "supervisor", m.error().message());
  std::visit(
      [&](const auto& report) {
        using T = std::decay_t<decltype(report)>;
        if constexpr (std::is_same_v<T, msg::RejectionReport>) {
          s.tally->add_rejection();
        } else if constexpr (std::is_same_v<T, msg::SamplingReport>) {
          if (auto added = s.tally->add(report); !added) {
            report_rejected(caf::actor_cast<caf::actor>(self), "supervisor",
                            m->source + ": " + added.error().message());
          } else {
            if (s.restarts) s.restarts->shipped(m->source, report.env_steps);
            if (s.cluster)
              s.cluster->acknowledged(0, report.env_steps, 0, 0, 0);  // the coordinator's own
          }
          finish_if_budget_spent(self);
        } else if constexpr (std::is_same_v<T, msg::LearningReport>) {
          s.tally->add(report);
        }  // evaluation reports answer the supervisor's requests: they come there
      },
      m->report);
  to_observers(self, frame);
}

void on_version(self_ptr self, const msg::VersionFrame& frame) {
  auto v = msg::read(frame);
  if (!v)
    return report_rejected(caf::actor_cast<caf::actor>(self), "supervisor", v.error().message());
  self->state.tally->add(*v);
  to_observers(self, frame);
  if (v->version > 0) snapshot_if_due(self, v->version);
}

// A multi-node run ends on the env steps the learner acknowledged from every node (its samplers
// have no budgets of their own: nodes come and go).
void finish_if_budget_spent(self_ptr self) {
  auto& s = self->state;
  if (s.cluster && status(self).env_steps >= s.config.run.max_env_steps)
    status(self).finished = true;
}

void on_acknowledged(self_ptr self, uint32_t node, uint64_t bytes, uint64_t lag, uint64_t oldest,
                     const msg::MetricsFrame& frame) {
  auto& s = self->state;
  auto m = msg::read(frame);
  const auto* report = m ? std::get_if<msg::SamplingReport>(&m->report) : nullptr;
  if (!report)
    return report_rejected(
        caf::actor_cast<caf::actor>(self), "supervisor",
        m ? "a node's segment came with a report that is not sampling's" : m.error().message());
  if (auto added = s.tally->add(*report); !added)
    return report_rejected(caf::actor_cast<caf::actor>(self), "supervisor",
                           m->source + ": " + added.error().message());
  if (s.cluster) s.cluster->acknowledged(node, report->env_steps, bytes, lag, oldest);
  to_observers(self, frame);
  finish_if_budget_spent(self);
}

void on_node_lost(self_ptr self, uint32_t node, const std::string& why) {
  auto& s = self->state;
  if (!s.cluster) return;
  auto text = s.cluster->lost(node, why);
  fmt::print(stderr, "dvla: {}\n", text ? *text : text.error().message());
}

// The samplers start: the coordinator's own (its nodes' start on their own).
void on_quorum(self_ptr self) {
  auto& s = self->state;
  if (s.cluster && !s.graph.samplers.empty())
    s.cluster->add_coordinator(static_cast<uint32_t>(s.graph.samplers.size()), s.groups.front(),
                               static_cast<uint32_t>(s.config.graph.inference_replicas));
  start_samplers(s.graph);
  if (s.restarts) s.restarts->samplers_started();
}

// Tells the nodes the run is over; answered with how many acknowledged.
caf::result<uint32_t> release_nodes(self_ptr self) {
  auto& s = self->state;
  if (!s.coordinator) return uint32_t{0};
  auto promise = self->make_response_promise<uint32_t>();
  self->request(s.coordinator, caf::infinite, release_atom::value)
      .then([promise](uint32_t n) mutable { promise.deliver(n); },
            [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  return promise;
}

// The status as of now: wall time, this run's rate (a resumed run's earlier steps took their
// own time), the pools.
RunStatus current_status(SupervisorState& s) {
  auto& status = s.tally->status();
  status.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
  status.memory = pool_summaries(s.pools.get());
  if (s.graph.placement)
    status.placement = {s.graph.placement->topology(), s.graph.placement->plan(),
                        s.graph.placement->threads(), s.graph.placement->memory()};
  if (s.cluster) {
    status.nodes = s.cluster->status();
    status.version_skew = s.cluster->version_skew();
    if (s.planes && s.planes->tls())
      status.refused_connections = accepted_tls_connections().refused();
  }
  status.steps_per_second =
      status.wall_seconds > 0 ? static_cast<double>(s.tally->env_steps_here()) / status.wall_seconds
                              : 0;
  return status;
}

ResumedCounters resumed_counters(const Checkpoint* resume) {
  if (!resume) return {};
  const auto& c = resume->state;
  return {c.version, c.env_steps, c.episodes, c.samples_trained};
}

// A multi-node run: the gate on the data plane, the learner's distributor (the root of the relay
// tree) on the weights plane and the coordinator on the control plane, each published on its
// plane's system (so that every handle crosses on its own plane's connection).
void open_cluster(self_ptr self) {
  auto& s = self->state;
  auto& planes = *s.planes;
  const auto listen = parse_cluster_address(s.config.cluster.listen);
  if (!listen) throw Failure("cluster.listen: " + listen.error().message());
  s.cluster = std::make_unique<ClusterTally>();
  CoordinatorSetup c;
  c.config = s.config;
  c.supervisor = self;
  c.control = s.control;
  c.address = s.config.cluster.listen;
  c.groups = s.groups;
  c.graph_shape = s.graph_shape;
  auto data_port_of_gate = std::make_shared<std::atomic<uint16_t>>(0);
  c.data_port = data_port_of_gate;
  c.data_system = &planes.data();
  c.trainer = s.graph.trainer;
  auto credentials = load_credentials(s.config.cluster, PeerRole::coordinator);
  if (!credentials) throw Failure("the coordinator's identity: " + credentials.error().message());
  c.credentials = std::move(*credentials);
  for (auto* system : {&planes.data(), &planes.control(), &planes.weights()}) {
    auto middleman = system->middleman().actor_handle();
    if (std::find(c.middlemen.begin(), c.middlemen.end(), middleman) == c.middlemen.end())
      c.middlemen.push_back(middleman);
  }
  auto weights_port_of_door = std::make_shared<std::atomic<uint16_t>>(0);
  c.weights_port = weights_port_of_door;
  auto coordinator = spawn_coordinator(self->system(), c);
  s.coordinator = coordinator.core;
  watch(self, "coordinator", caf::actor_cast<caf::actor>(s.coordinator));
  // Published on the weights plane: the learner's distributor behind a door that takes attaches
  // only (whole versions come from the trainer, in this process); what it refuses is the
  // coordinator's to count against each peer.
  auto weights_door =
      spawn_relay_door(planes.weights(), s.graph.distributor, caf::actor_cast<caf::actor>(self),
                       caf::actor_cast<caf::actor>(coordinator.core));
  const uint16_t wanted_weights_port =
      listen->port == 0 ? 0 : static_cast<uint16_t>(listen->port + 2);
  auto weights_port = planes.publish(weights_door, listen->host, wanted_weights_port);
  if (!weights_port) throw Failure("the weights plane " + weights_port.error().message());
  weights_port_of_door->store(*weights_port);
  s.gate = spawn_segment_gate(planes.data(), coordinator.core);
  watch(self, "segment gate", caf::actor_cast<caf::actor>(s.gate));
  const uint16_t wanted_data_port = listen->port == 0 ? 0 : static_cast<uint16_t>(listen->port + 1);
  auto data_port = planes.publish(s.gate, listen->host, wanted_data_port);
  if (!data_port) throw Failure("the data plane " + data_port.error().message());
  data_port_of_gate->store(*data_port);
  auto control_port = planes.publish(coordinator.door, listen->host, listen->port);
  if (!control_port) throw Failure("the control plane " + control_port.error().message());
  const auto address = listen->host + ":" + std::to_string(*control_port);
  fmt::print(stderr,
             "dvla: coordinator listening on {} (control plane; data plane: port {}; weights "
             "plane: port {}, relay fanout {}), {}\n",
             address, *data_port, *weights_port, s.config.distribution.fanout,
             planes.tls() ? std::string("mutual TLS")
             : is_loopback_host(listen->host)
                 ? std::string("plain TCP on loopback: only this machine can join (for other "
                               "machines give an address and certificates: docs/multi-node.md)")
                 : std::string("WARNING: plain TCP beyond loopback (cluster.insecure=true): any "
                               "peer that reaches the ports can join and read or send the run's "
                               "traffic; configure cluster.tls.* (docs/multi-node.md)"));
  // Joins go there: the run's summary and tests read the port from here too.
  fmt::print(stderr, "dvla: coordinator port {}\n", *control_port);
}

// Where a restarted trainer starts from, as the status has it.
TrainerRestartPoint trainer_restart_point(const RunStatus& s) {
  return {{s.version, s.samples_trained, s.dropped_stale}, s.last_checkpoint};
}

// Builds the graph and its control plane, each actor watched as it is spawned.
void build(self_ptr self, const Graph& graph, std::shared_ptr<const Checkpoint> resume,
           std::shared_ptr<LaneTracer> tracer) {
  auto& s = self->state;
  const bool cluster = s.planes && !s.config.cluster.listen.empty();
  BuildContext context;
  context.config = s.config;
  context.resume = resume;
  context.tracer = std::move(tracer);
  context.pools = s.pools;
  context.env_steps_done = resume ? resume->state.env_steps : 0;
  context.supervisor = caf::actor_cast<caf::actor>(self);
  context.watch = [self](const std::string& name, const caf::actor& a) { watch(self, name, a); };
  context.control_system = &self->system();
  if (s.planes) context.weights_system = &s.planes->weights();
  if (cluster)
    context.placement =
        BuildContext::SamplerPlacement{0, static_cast<uint32_t>(s.config.cluster.local_samplers)};
  auto& data_system = s.planes ? s.planes->data() : self->system();
  s.graph = build_graph(data_system, graph, context);
  s.restarts = std::make_unique<GraphRestarts>(
      RestartContext{&data_system, s.config.fault, context.watch,
                     [self] { return trainer_restart_point(status(self)); }},
      s.graph);
  if (s.graph.placement) {
    fmt::print(stderr, "dvla: placement (graph.placement = auto) on {}: {}\n",
               s.graph.placement->topology(), s.graph.placement->plan());
    if (const auto memory = s.graph.placement->memory_text(); !memory.empty())
      fmt::print(stderr, "dvla: replica weight buffers: {}\n", memory);
  }
  s.tally = std::make_unique<StatusTally>(s.graph.group_names, resumed_counters(resume.get()));
  ControlPlaneSetup control;
  control.endpoints = s.graph.endpoints;
  control.ping_interval_s = s.config.run.control_ping_interval_s;
  control.timeout_s = s.config.run.message_timeout_s;
  control.supervisor = context.supervisor;
  s.control = spawn_control_plane(self->system(), control);
  watch(self, "control plane", caf::actor_cast<caf::actor>(s.control));
  if (!cluster) {
    start(s.graph);
    return s.restarts->samplers_started();
  }
  // The learner publishes its first weights now; samplers start once the nodes are in.
  caf::anon_send(s.graph.trainer, start_atom::value);
  for (const auto& g : graph.env_groups) {
    const int episode = g.env_spec ? g.env_spec().max_episode_steps : 0;
    s.groups.push_back({g.name, static_cast<uint32_t>(g.samplers),
                        static_cast<uint32_t>(g.envs_per_sampler),
                        static_cast<uint32_t>(std::max(s.config.graph.segment_length, episode))});
  }
  s.graph_shape = graph_shape(graph);
  open_cluster(self);
}

supervisor_actor::behavior_type supervisor(self_ptr self, Config config, Graph graph,
                                           std::shared_ptr<const Checkpoint> resume,
                                           std::shared_ptr<LaneTracer> tracer,
                                           std::shared_ptr<gpu::MemoryPools> pools,
                                           PlaneSystems* planes) {
  auto& s = self->state;
  s.config = std::move(config);
  s.pools = std::move(pools);
  s.planes = planes;
  // Before the build: a failure while building is recorded in the status like any other.
  s.tally =
      std::make_unique<StatusTally>(std::vector<std::string>{}, resumed_counters(resume.get()));
  const uint64_t start_version = resume ? resume->state.version : 0;
  s.schedule = std::make_unique<SnapshotSchedule>(s.config.run, start_version,
                                                  s.config.run.eval_episodes > 0);
  self->set_down_handler([self](caf::down_msg& down) {
    auto& s = self->state;
    if (s.stopping) return;
    const auto name = s.names.count(down.source) ? s.names[down.source] : std::string("an actor");
    if (!down.reason) return fail(self, name + " stopped unexpectedly");
    restart_or_fail(self, down.source, name, naming(name, describe(down.reason)));
  });
  // A child's end arrives twice (link and monitor): the down handler above deals with it.
  self->set_exit_handler([](caf::exit_msg&) {});
  try {
    build(self, graph, std::move(resume), std::move(tracer));
  } catch (const std::exception& e) {
    fail(self, std::string("building the actor graph failed: ") + e.what());
  }
  return {
      [self](const msg::MetricsFrame& f) { on_metrics(self, f); },
      [self](const msg::VersionFrame& f) { on_version(self, f); },
      [self](finished_atom, uint32_t) {
        auto& s = self->state;
        if (++s.samplers_finished < s.graph.samplers.size()) return;
        s.samplers_done = true;
        finish_when_evaluated(self);
        next_evaluation(self);  // those deferred until now
      },
      [self](const ControlSummary& c) { status(self).control = c; },
      [self](status_atom) { return current_status(self->state); },
      [self](weights_atom) -> caf::result<msg::WeightsFrame> {
        if (!self->state.graph.trainer) return make_error(errc::bad_setup, "there is no trainer");
        auto promise = self->make_response_promise<msg::WeightsFrame>();
        relay_weights(self, promise);
        return promise;
      },
      [self](checkpoint_atom) -> caf::result<std::string, msg::WeightsFrame> {
        if (!self->state.graph.trainer) return make_error(errc::bad_setup, "there is no trainer");
        auto promise = self->make_response_promise<std::string, msg::WeightsFrame>();
        request_checkpoint(
            self,
            [promise](const std::string& dir, const msg::WeightsFrame& w) mutable {
              promise.deliver(dir, w);
            },
            [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
        return promise;
      },
      [self](const msg::ControlFrame& frame) { return on_command(self, frame); },
      [self](shutdown_atom) {
        stop_graph(self);
        self->quit();
      },
      [self](join_atom, const NodeInfo& info, const NodeAssignment& assignment) {
        if (self->state.cluster) self->state.cluster->joined(info, assignment);
      },
      [self](ready_atom, uint32_t node) {
        if (self->state.cluster) self->state.cluster->running(node);
      },
      [self](lost_atom, uint32_t node, const std::string& why) { on_node_lost(self, node, why); },
      [self](acked_atom, uint32_t node, uint64_t bytes, uint64_t lag, uint64_t oldest,
             const msg::MetricsFrame& frame) {
        on_acknowledged(self, node, bytes, lag, oldest, frame);
      },
      [self](delivered_atom, const std::string& name, uint64_t version, uint64_t bytes) {
        if (self->state.cluster) self->state.cluster->weights_delivered(name, version, bytes);
      },
      [self](relay_atom, uint32_t node, const std::string& from) {
        if (self->state.cluster) self->state.cluster->weights_from(node, from);
      },
      [self](ping_atom, const std::string& node, double us) {
        if (self->state.cluster) self->state.cluster->round_trip(node, us);
      },
      [self](quorum_atom) { on_quorum(self); },
      [self](release_atom) { return release_nodes(self); },
      [self](refused_atom, uint32_t node) {
        self->state.tally->add_rejection();
        if (node == 0)
          ++status(self).refused_strangers;
        else if (self->state.cluster)
          self->state.cluster->refused(node);
      },
  };
}

}  // namespace

supervisor_actor spawn_supervisor(caf::actor_system& system, const Config& config,
                                  const Graph& graph, std::shared_ptr<const Checkpoint> resume,
                                  std::shared_ptr<LaneTracer> tracer,
                                  std::shared_ptr<gpu::MemoryPools> pools, PlaneSystems* planes) {
  return system.spawn(supervisor, config, graph, std::move(resume), std::move(tracer),
                      std::move(pools), planes);
}

}  // namespace dvla::actors
