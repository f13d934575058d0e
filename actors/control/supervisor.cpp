#include <dvla/actors/control/supervisor.hpp>

#include <caf/all.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <dvla/actors/control/control_endpoint.hpp>
#include <dvla/actors/distribution/distributor.hpp>
#include <dvla/actors/evaluation/evaluator.hpp>
#include <dvla/actors/inference/inference.hpp>
#include <dvla/actors/learning/trainer.hpp>
#include <dvla/actors/sampling/sampler.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>
#include <dvla/envs/batched_env.hpp>
#include <dvla/gpu/memory_pools.hpp>
#include <dvla/gpu/pool_lease.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/version_announcement.hpp>
#include <dvla/runtime/evaluation/evaluation_metrics.hpp>
#include <dvla/runtime/run/run_status.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>

namespace dvla::actors {
namespace {

constexpr size_t return_window = 100;  // episodes in the running mean return

struct ControlEndpoint {
  std::string name;
  control_endpoint_actor handle;
  bool takes_orders;  // pause and resume (samplers)
};

// An evaluation asked for by a control command: answered with its id once the result is in.
struct EvaluationCommand {
  caf::typed_response_promise<uint64_t> promise;
  uint64_t id = 0;
};

struct SupervisorState {
  Config config;
  std::shared_ptr<const Checkpoint> resume;
  std::shared_ptr<LaneTracer> tracer;       // may be null
  std::shared_ptr<gpu::MemoryPools> pools;  // may be null
  trainer_actor trainer;
  evaluator_actor evaluator;               // null when eval.episodes is 0
  std::vector<ControlEndpoint> endpoints;  // the control plane's door to each lane actor
  uint64_t control_requests = 0;           // ids of control commands
  double control_rtt_sum_us = 0;
  std::vector<caf::actor> children;  // every actor of the graph, for shutdown
  std::map<caf::actor_addr, std::string> names;
  RunStatus status;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::deque<double> recent_returns, recent_successes;
  double lag_weighted_sum = 0;
  uint64_t samples_at_start = 0;                       // trained before a resume
  uint64_t env_steps_at_start = 0;                     // collected before a resume
  uint64_t next_checkpoint = 0, next_evaluation = 0;   // versions due
  bool evaluating = false;                             // one evaluation at a time
  std::vector<EvaluationCommand> evaluation_commands;  // waiting for the latest weights' turn
  size_t samplers_finished = 0;
  bool stopping = false;
};

using self_ptr = caf::stateful_actor<SupervisorState>*;

void evaluate_for_commands(self_ptr self);  // an evaluation's end starts the next one asked for

// Monitored, to report how a child ended; linked, so that children end with the supervisor.
template <class Handle>
Handle watch(self_ptr self, Handle h, const std::string& name) {
  self->monitor(h);
  self->link_to(h);
  self->state.names[h.address()] = name;
  self->state.children.push_back(caf::actor_cast<caf::actor>(h));
  return h;
}

std::vector<PoolSummary> pool_summaries(const gpu::MemoryPools* pools) {
  std::vector<PoolSummary> out;
  if (!pools) return out;
  for (const auto& p : pools->stats())
    out.push_back({p.name, p.budget, p.reserved, p.peak_reserved, p.in_use, p.peak_in_use,
                   p.largest_free_block, p.failed_requests});
  return out;
}

// Gives a lane actor its control endpoint, watched like the actor itself.
template <class Handle>
void add_endpoint(self_ptr self, const Handle& actor, const std::string& name,
                  std::shared_ptr<LaneTrack> track, bool takes_orders = false) {
  auto& s = self->state;
  ControlEndpointSetup e;
  e.name = name;
  e.data_actor = caf::actor_cast<caf::actor>(actor);
  e.takes_orders = takes_orders;
  e.track = std::move(track);
  e.timeout_s = s.config.run.message_timeout_s;
  e.supervisor = caf::actor_cast<caf::actor>(self);
  auto handle = watch(self, spawn_control_endpoint(self->system(), e), name + "/control");
  s.endpoints.push_back({name, handle, takes_orders});
}

// Batched steps for each sampler: together at least the env steps left of max_env_steps.
std::vector<uint64_t> step_budgets(const Config& c, uint64_t done) {
  const auto per_step = static_cast<uint64_t>(c.graph.envs_per_sampler);
  const uint64_t left = c.run.max_env_steps - std::min(done, c.run.max_env_steps);
  const uint64_t total = (left + per_step - 1) / per_step;
  const auto n = static_cast<uint64_t>(c.graph.samplers);
  std::vector<uint64_t> budgets(n, total / n);
  for (uint64_t i = 0; i < total % n; ++i) ++budgets[i];
  return budgets;
}

std::shared_ptr<LaneTrack> track(const SupervisorState& s, const std::string& actor, Lane home) {
  return s.tracer ? s.tracer->track(actor, home) : nullptr;
}

// A lease on the model pool for `holder` (null without pools: plain heap memory).
std::shared_ptr<gpu::PoolLease> model_lease(const SupervisorState& s, const std::string& holder) {
  return s.pools ? std::make_shared<gpu::PoolLease>(s.pools->model(), holder) : nullptr;
}

void build_graph(self_ptr self, const GraphParts& parts) {
  auto& s = self->state;
  const auto& c = s.config;
  auto& sys = self->system();
  const auto spec = parts.env_spec();
  auto make_policy = [parts, spec] { return parts.make_policy(spec); };
  caf::actor me = caf::actor_cast<caf::actor>(self);
  // A resumed run draws fresh episodes and samples: its streams are offset by the version.
  const uint64_t resumed_version = s.resume ? s.resume->state.version : 0;

  std::vector<inference_actor> replicas;
  DistributorSetup d;
  for (int r = 0; r < c.graph.inference_replicas; ++r) {
    InferenceSetup setup;
    setup.name = "inference/" + std::to_string(r);
    setup.spec = spec;
    // A resumed run acts with its checkpoint's weights until the first update.
    setup.weights = std::make_shared<DoubleBufferedReplica>(
        setup.name, make_policy, s.resume ? s.resume->weights : msg::WeightsFrame(),
        model_lease(s, setup.name));
    setup.seed = envs::next_seed(c.run.seed + 1000 + static_cast<uint64_t>(r) + resumed_version);
    setup.torch_threads = inference_torch_threads(c.graph);
    setup.track = track(s, setup.name, Lane::inference);
    setup.supervisor = me;
    d.replicas.push_back(setup.weights);
    replicas.push_back(watch(self, spawn_inference(sys, setup), setup.name));
    add_endpoint(self, replicas.back(), setup.name, setup.track);
  }
  d.track = track(s, d.name, Lane::distribution);
  d.supervisor = me;
  auto distributor = watch(self, spawn_distributor(sys, d), d.name);
  add_endpoint(self, distributor, d.name, d.track);

  TrainerSetup t;
  t.spec = spec;
  t.make_policy = make_policy;
  t.config = c;
  t.seed = c.run.seed;
  t.checkpoint_root = c.run.logdir;
  t.resume = s.resume;
  if (c.run.mode == "sync") t.lock_step_samplers = static_cast<size_t>(c.graph.samplers);
  t.timeout_s = c.run.message_timeout_s;
  t.track = track(s, t.name, Lane::training);
  t.distributor = distributor;
  t.supervisor = me;
  t.model_lease = model_lease(s, t.name);
  s.trainer = watch(self, spawn_trainer(sys, t), t.name);
  add_endpoint(self, s.trainer, t.name, t.track);

  if (c.run.eval_episodes > 0) {  // periodic evaluations, and those asked for by command
    EvaluatorSetup e;
    const auto id = static_cast<uint32_t>(c.graph.samplers);  // an index no sampler has
    const auto episodes = static_cast<size_t>(c.run.eval_episodes);
    e.make_env = [parts, id, episodes] { return parts.make_env(id, episodes); };
    e.make_policy = parts.make_policy;
    e.seed = c.run.seed;
    e.torch_threads = c.graph.torch_threads;
    e.model_lease = model_lease(s, e.name);
    s.evaluator = watch(self, spawn_evaluator(sys, e), e.name);
  }

  const auto budgets = step_budgets(c, s.status.env_steps);
  std::vector<sampler_actor> samplers;
  for (int i = 0; i < c.graph.samplers; ++i) {
    SamplerSetup setup;
    setup.name = "sampler/" + std::to_string(i);
    setup.id = static_cast<uint32_t>(i);
    setup.make_env = [parts, i](size_t envs) {
      return parts.make_env(static_cast<uint32_t>(i), envs);
    };
    setup.envs = static_cast<size_t>(c.graph.envs_per_sampler);
    setup.env_buffers = env_buffers(c);
    setup.seed = resumed_version ? envs::next_seed(c.run.seed ^ resumed_version) : c.run.seed;
    setup.segment_length = c.graph.segment_length;
    setup.segments_in_flight = c.graph.segments_in_flight;
    setup.step_budget = budgets[static_cast<size_t>(i)];
    setup.group_size = c.run.algo == "grpo" ? c.grpo.group_size : 0;
    setup.lock_step = c.run.mode == "sync";
    setup.track = track(s, setup.name, Lane::sampling);
    if (s.pools) setup.sim_lease = std::make_shared<gpu::PoolLease>(s.pools->sim(), setup.name);
    setup.inference = replicas[static_cast<size_t>(i) % replicas.size()];
    setup.trainer = s.trainer;
    setup.supervisor = me;
    samplers.push_back(watch(self, spawn_sampler(sys, setup), setup.name));
    add_endpoint(self, samplers.back(), setup.name, setup.track, /*takes_orders=*/true);
  }
  self->send(s.trainer, start_atom::value);
  for (auto& sampler : samplers) self->send(sampler, start_atom::value);
}

void stop_graph(self_ptr self) {
  auto& s = self->state;
  s.stopping = true;
  for (auto& child : s.children) self->send_exit(child, caf::exit_reason::user_shutdown);
}

void fail(self_ptr self, const std::string& why) {
  auto& s = self->state;
  if (s.status.failure.empty()) s.status.failure = why;
  s.status.finished = true;
  stop_graph(self);
}

// Sends `kind` to every control endpoint (pause and resume: to those that take orders) and
// calls `done` with the round trip in microseconds once all have acknowledged. An endpoint that
// does not answer fails the run, naming it.
void control_round(self_ptr self, msg::Command kind, std::function<void(double)> done) {
  auto& s = self->state;
  const bool orders = kind == msg::Command::pause || kind == msg::Command::resume;
  std::vector<const ControlEndpoint*> targets;
  for (const auto& e : s.endpoints)
    if (!orders || e.takes_orders) targets.push_back(&e);
  if (targets.empty()) return done(0);
  const auto frame = msg::build(msg::ControlCommand{kind, ++s.control_requests, {}});
  auto remaining = std::make_shared<size_t>(targets.size());
  const auto started = std::chrono::steady_clock::now();
  for (const auto* e : targets)
    self->request(e->handle, timeout_of(s.config.run.message_timeout_s), frame)
        .then(
            [remaining, started, done](uint64_t, int64_t) {
              if (--*remaining > 0) return;
              done(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                             started)
                       .count());
            },
            [self, name = e->name, kind](caf::error& err) {
              if (self->state.stopping) return;  // the graph is being taken down
              fail(self, name + " did not acknowledge '" + std::string(msg::command_name(kind)) +
                             "': " + describe(err));
            });
}

void schedule_ping(self_ptr self) {
  const double interval_s = self->state.config.run.control_ping_interval_s;
  if (interval_s > 0)
    self->delayed_send(self, std::chrono::microseconds(static_cast<int64_t>(interval_s * 1e6)),
                       ping_atom::value);
}

// A health round: every endpoint acknowledges a ping; its round trip goes into the status.
void ping_round(self_ptr self) {
  if (self->state.stopping) return;
  control_round(self, msg::Command::ping, [self](double us) {
    auto& s = self->state;
    auto& c = s.status.control;
    ++c.rounds;
    c.last_us = us;
    c.max_us = std::max(c.max_us, us);
    s.control_rtt_sum_us += us;
    c.mean_us = s.control_rtt_sum_us / static_cast<double>(c.rounds);
    schedule_ping(self);
  });
}

// Has the trainer save a checkpoint of its latest version; `saved` gets its directory and
// weights, `failed` the error. Control requests to the trainer are urgent: they overtake the
// segments queued in its mailbox.
template <class OnSaved, class OnError>
void request_checkpoint(self_ptr self, OnSaved saved, OnError failed) {
  auto& s = self->state;
  self->request<caf::message_priority::high>(s.trainer, timeout_of(s.config.run.message_timeout_s),
                                             checkpoint_atom::value, s.status.env_steps,
                                             s.status.episodes)
      .then(
          [self, saved](const std::string& dir, const msg::WeightsFrame& w) mutable {
            self->state.status.last_checkpoint = dir;
            saved(dir, w);
          },
          std::move(failed));
}

// A control command from outside the graph, applied to every actor it concerns; answered with
// its request id once all have acknowledged (shutdown: at once; evaluate: once evaluated).
caf::result<uint64_t> on_command(self_ptr self, const msg::ControlFrame& frame) {
  auto& s = self->state;
  auto command = msg::read(frame);
  if (!command)
    return make_error(errc::malformed_message, "supervisor: " + command.error().message());
  const uint64_t id = command->request_id;
  switch (command->kind) {
    case msg::Command::shutdown:
      stop_graph(self);
      self->quit();
      return id;
    case msg::Command::evaluate: {
      if (!s.trainer) return make_error(errc::bad_setup, "there is no trainer");
      if (!s.evaluator)
        return refuse(caf::actor_cast<caf::actor>(self), "supervisor", errc::bad_setup,
                      "an evaluation was asked for, but eval.episodes is 0: there is nothing to "
                      "evaluate on");
      auto promise = self->make_response_promise<uint64_t>();
      s.evaluation_commands.push_back({promise, id});
      evaluate_for_commands(self);
      return promise;
    }
    case msg::Command::checkpoint: {
      if (!s.trainer) return make_error(errc::bad_setup, "there is no trainer");
      auto promise = self->make_response_promise<uint64_t>();
      request_checkpoint(
          self,
          [promise, id](const std::string&, const msg::WeightsFrame&) mutable {
            promise.deliver(id);
          },
          [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
      return promise;
    }
    default: {
      auto promise = self->make_response_promise<uint64_t>();
      control_round(self, command->kind, [promise, id](double) mutable { promise.deliver(id); });
      return promise;
    }
  }
}

void set_learner(LearnerSummary& l, const std::string& name, double value) {
  const std::pair<const char*, double*> fields[] = {
      {"learner_policy_loss", &l.policy_loss},
      {"learner_value_loss", &l.value_loss},
      {"learner_entropy", &l.entropy},
      {"learner_approx_kl", &l.approx_kl},
      {"learner_clip_fraction", &l.clip_fraction},
      {"learner_reference_kl", &l.reference_kl},
      {"learner_samples", &l.samples},
      {"learner_learning_rate", &l.learning_rate},
      {"learner_importance_weight_max", &l.importance_weight_max},
      {"learner_importance_weight_ess", &l.importance_weight_ess}};
  for (const auto& [key, field] : fields)
    if (name == key) *field = value;
}

// "policy_lag_<versions>" names the samples trained that many versions behind.
std::optional<size_t> lag_of(const std::string& name) {
  constexpr std::string_view prefix = "policy_lag_";
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  const auto digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 4 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoul(digits);
}

void on_metrics(self_ptr self, const msg::MetricsFrame& frame) {
  auto& s = self->state;
  auto m = msg::read(frame);
  if (!m)
    return report_rejected(caf::actor_cast<caf::actor>(self), "supervisor", m.error().message());
  for (const auto& [name, value] : m->samples) {
    if (name == "env_steps") {
      s.status.env_steps += static_cast<uint64_t>(value);
    } else if (name == "episode_return") {
      ++s.status.episodes;
      s.recent_returns.push_back(value);
      if (s.recent_returns.size() > return_window) s.recent_returns.pop_front();
    } else if (name == "episode_success") {
      s.recent_successes.push_back(value);
      if (s.recent_successes.size() > return_window) s.recent_successes.pop_front();
    } else if (name == "rejected_messages") {
      s.status.rejected_messages += static_cast<uint64_t>(value);
    } else if (name.rfind("learner_", 0) == 0) {
      set_learner(s.status.learner, name, value);
    } else if (auto lag = lag_of(name)) {
      auto& counts = s.status.policy_lag_samples;
      if (counts.size() <= *lag) counts.resize(*lag + 1, 0);
      counts[*lag] += static_cast<uint64_t>(value);
    }
  }
  auto mean = [](const std::deque<double>& d) {
    double sum = 0;
    for (auto v : d) sum += v;
    return d.empty() ? 0.0 : sum / static_cast<double>(d.size());
  };
  s.status.mean_return = mean(s.recent_returns);
  s.status.success_rate = mean(s.recent_successes);
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

// Evaluates `weights` on the evaluator (the caller has set `evaluating`); the result goes into
// the status and, when the weights are a checkpoint's (`dir`), into that checkpoint; then
// `commands` are answered and those waiting meanwhile get their evaluation.
void evaluate(self_ptr self, const msg::WeightsFrame& weights, const std::string& dir,
              std::vector<EvaluationCommand> commands = {}) {
  auto& s = self->state;
  const uint64_t env_steps = s.status.env_steps;  // when the weights were taken
  // No timeout: an evaluation takes as long as its episodes; the evaluator is watched, so its
  // failure still ends the run with its reason.
  self->request(s.evaluator, caf::infinite, weights)
      .then(
          [self, dir, env_steps, commands](const msg::MetricsFrame& frame) mutable {
            auto& s = self->state;
            s.evaluating = false;
            auto m = msg::read(frame);
            auto summary = m ? evaluation_summary(*m) : Expected<EvaluationSummary>(m.error());
            if (!summary) {
              answer(commands, refuse(caf::actor_cast<caf::actor>(self), "supervisor",
                                      errc::malformed_message, summary.error().message()));
            } else {
              s.status.last_evaluation = *summary;
              s.status.last_evaluation.env_steps = env_steps;
              ++s.status.evaluations;
              if (!dir.empty())
                self->send<caf::message_priority::high>(s.trainer, evaluated_atom::value, dir,
                                                        summary->success_rate,
                                                        summary->mean_return);
              answer(commands);
            }
            evaluate_for_commands(self);
          },
          [self, commands](caf::error& e) mutable {
            answer(commands, e);
            fail(self, "evaluation failed: " + describe(e));
          });
}

// Has the trainer's latest weights evaluated, then `commands` answered.
void evaluate_latest(self_ptr self, std::vector<EvaluationCommand> commands = {}) {
  auto& s = self->state;
  s.evaluating = true;
  self->request<caf::message_priority::high>(s.trainer, timeout_of(s.config.run.message_timeout_s),
                                             weights_atom::value)
      .then([self,
             commands](const msg::WeightsFrame& weights) { evaluate(self, weights, {}, commands); },
            [self, commands](caf::error& e) mutable {
              answer(commands, e);
              fail(self, "fetching weights to evaluate failed: " + describe(e));
            });
}

// The evaluation commands waiting get one evaluation of the latest weights, unless one runs:
// then they wait for its end.
void evaluate_for_commands(self_ptr self) {
  auto& s = self->state;
  if (s.evaluating || s.evaluation_commands.empty() || s.stopping) return;
  evaluate_latest(self, std::exchange(s.evaluation_commands, {}));
}

// Every checkpoint.every versions a checkpoint (with a logdir), every eval.every versions an
// evaluation (one at a time: a due evaluation waits while one runs). When both fall due together
// the checkpoint's weights are evaluated, so that the best checkpoint can be chosen.
void snapshot_if_due(self_ptr self) {
  auto& s = self->state;
  const auto& r = s.config.run;
  const uint64_t v = s.status.version;
  const bool checkpoint = !r.logdir.empty() && r.checkpoint_every > 0 && v >= s.next_checkpoint;
  const bool evaluation =
      s.evaluator && r.eval_every > 0 && !s.evaluating && v >= s.next_evaluation;
  if (checkpoint) s.next_checkpoint = v + static_cast<uint64_t>(r.checkpoint_every);
  if (evaluation) {
    s.next_evaluation = v + static_cast<uint64_t>(r.eval_every);
    s.evaluating = true;
  }
  if (checkpoint) {
    request_checkpoint(
        self,
        [self, evaluation](const std::string& dir, const msg::WeightsFrame& weights) {
          if (evaluation) evaluate(self, weights, dir);
        },
        [self](caf::error& e) { fail(self, "saving a checkpoint failed: " + describe(e)); });
  } else if (evaluation) {
    evaluate_latest(self);
  }
}

void on_version(self_ptr self, const msg::VersionFrame& frame) {
  auto& s = self->state;
  auto v = msg::read(frame);
  if (!v)
    return report_rejected(caf::actor_cast<caf::actor>(self), "supervisor", v.error().message());
  const uint64_t newly_trained =
      v->samples_trained - std::min(v->samples_trained, s.status.samples_trained);
  s.lag_weighted_sum += v->policy_lag_mean * static_cast<double>(newly_trained);
  s.status.version = v->version;
  s.status.samples_trained = v->samples_trained;
  s.status.dropped_stale = v->samples_dropped;
  if (s.status.samples_trained > s.samples_at_start)
    s.status.policy_lag_mean =
        s.lag_weighted_sum / static_cast<double>(s.status.samples_trained - s.samples_at_start);
  if (v->version > 0) snapshot_if_due(self);
}

// Starts the counters where a resumed run left them, and the snapshot schedule after them.
void start_counters(SupervisorState& s) {
  const auto& r = s.config.run;
  if (s.resume) {
    const auto& c = s.resume->state;
    s.status.version = c.version;
    s.status.env_steps = s.env_steps_at_start = c.env_steps;
    s.status.episodes = c.episodes;
    s.status.samples_trained = s.samples_at_start = c.samples_trained;
  }
  s.next_checkpoint = s.status.version + static_cast<uint64_t>(r.checkpoint_every);
  s.next_evaluation = s.status.version + static_cast<uint64_t>(r.eval_every);
}

caf::behavior supervisor(self_ptr self, Config config, GraphParts parts,
                         std::shared_ptr<const Checkpoint> resume,
                         std::shared_ptr<LaneTracer> tracer,
                         std::shared_ptr<gpu::MemoryPools> pools) {
  auto& s = self->state;
  s.config = std::move(config);
  s.resume = std::move(resume);
  s.tracer = std::move(tracer);
  s.pools = std::move(pools);
  start_counters(s);
  self->set_down_handler([self](caf::down_msg& down) {
    auto& s = self->state;
    if (s.stopping) return;
    const auto name = s.names.count(down.source) ? s.names[down.source] : std::string("an actor");
    fail(self, down.reason ? describe(down.reason) : name + " stopped unexpectedly");
  });
  // A child's end arrives twice (link and monitor): the down handler above deals with it.
  self->set_exit_handler([](caf::exit_msg&) {});
  try {
    build_graph(self, parts);
    schedule_ping(self);
  } catch (const std::exception& e) {
    fail(self, std::string("building the actor graph failed: ") + e.what());
  }
  return {
      [self](const msg::MetricsFrame& f) { on_metrics(self, f); },
      [self](const msg::VersionFrame& f) { on_version(self, f); },
      [self](finished_atom, uint32_t) {
        auto& s = self->state;
        if (++s.samplers_finished == static_cast<size_t>(s.config.graph.samplers))
          s.status.finished = true;
      },
      [self](status_atom) {
        auto& s = self->state;
        s.status.wall_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
        // This run's rate: a resumed run's earlier steps took their own time.
        const auto steps = s.status.env_steps - s.env_steps_at_start;
        s.status.memory = pool_summaries(s.pools.get());
        s.status.steps_per_second =
            s.status.wall_seconds > 0 ? static_cast<double>(steps) / s.status.wall_seconds : 0;
        return s.status;
      },
      [self](weights_atom a) -> caf::result<msg::WeightsFrame> {
        if (!self->state.trainer) return make_error(errc::bad_setup, "there is no trainer");
        // Relayed, not delegated: a request delegated with high priority never reached the
        // requester's answer handler (it timed out), so the answer is passed on by hand.
        auto promise = self->make_response_promise<msg::WeightsFrame>();
        self->request<caf::message_priority::high>(
                self->state.trainer, timeout_of(self->state.config.run.message_timeout_s), a)
            .then([promise](const msg::WeightsFrame& w) mutable { promise.deliver(w); },
                  [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
        return promise;
      },
      [self](checkpoint_atom) -> caf::result<std::string, msg::WeightsFrame> {
        if (!self->state.trainer) return make_error(errc::bad_setup, "there is no trainer");
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
      [self](ping_atom) { ping_round(self); },
      [self](shutdown_atom) {
        stop_graph(self);
        self->quit();
      },
  };
}

}  // namespace

caf::actor spawn_supervisor(caf::actor_system& system, const Config& config,
                            const GraphParts& parts, std::shared_ptr<const Checkpoint> resume,
                            std::shared_ptr<LaneTracer> tracer,
                            std::shared_ptr<gpu::MemoryPools> pools) {
  return system.spawn(supervisor, config, parts, std::move(resume), std::move(tracer),
                      std::move(pools));
}

}  // namespace dvla::actors
