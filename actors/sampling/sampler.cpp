#include <dvla/actors/sampling/sampler.hpp>

#include <caf/all.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>

#include <dvla/actors/sampling/collection.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/gpu/pool_lease.hpp>
#include <dvla/messages/action_batch.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/observation_batch.hpp>
#include <dvla/runtime/platform/thread_priority.hpp>
#include <dvla/runtime/trajectories/env_observations.hpp>
#include <dvla/runtime/trajectories/segment_builder.hpp>

namespace dvla::actors {
namespace {

// A lost peer (inference replica, trainer) the sampler waits for the supervisor to replace.
struct LostPeer {
  std::optional<std::chrono::steady_clock::time_point> deadline;  // empty: not lost

  bool lost() const { return deadline.has_value(); }
  // Starts the wait (true), unless one is going on.
  bool start(caf::timespan wait) {
    if (deadline) return false;
    deadline = std::chrono::steady_clock::now() + wait;
    return true;
  }
  bool overdue() const { return deadline && std::chrono::steady_clock::now() >= *deadline; }
  void replaced() { deadline.reset(); }
};

// Consecutive malformed answers from inference tolerated before the sampler gives up.
constexpr int max_malformed_answers = 3;

// Data-plane requests (thousands a second) carry no timeout: CAF 0.17 keeps a request's timeout
// entry until it expires, answered or not, which costs its clock thread a wake-up per request and
// memory for requests/s x timeout. A receiver that dies answers with an error; one that hangs
// stops the run's progress, which train()'s watchdog reports (message_timeout_s).
const auto data_plane = caf::infinite;

struct SamplerState {
  SamplerSetup setup;
  std::unique_ptr<Collection> collection;  // how it collects: chosen once, from the setup
  std::vector<EnvBuffer> buffers;
  size_t envs = 0;  // over all buffers
  uint64_t observation_sequence = 0;
  uint64_t segment_sequence = 0;
  uint64_t counted_steps = 0;  // env steps within episodes (episodic: the valid ones)
  int in_flight = 0;           // segments the trainer has not acknowledged
  int reserved = 0;            // credits set aside for segments being collected
  bool paused = false;
  bool draining = false;  // the step budget is spent
  bool finished = false;
  int malformed_answers = 0;
  // Its inference replica was lost: no requests until the supervisor names its replacement.
  LostPeer replica;
  // Segments shipped to the trainer and not acknowledged, by delivery number: a trainer that is
  // restarted gets them again (the lost one's held acknowledgements never come).
  std::map<uint64_t, msg::SegmentFrame> unacknowledged;
  uint64_t next_delivery = 0;
  // Its trainer was lost: segments wait in `unacknowledged` until the supervisor names the next.
  LostPeer trainer;
  WaitSpan waiting_for_credit;
  msg::SamplingReport unreported;  // env steps and episodes since the last report
};

using self_ptr = sampler_actor::stateful_pointer<SamplerState>;

void request_actions(self_ptr self, EnvBuffer& b);

void request_all(self_ptr self) {
  for (auto& b : self->state.buffers) request_actions(self, b);
}

void report(self_ptr self) {
  auto& s = self->state;
  const auto& r = s.unreported;
  if (!s.setup.supervisor ||
      (r.env_steps == 0 && r.episode_returns.empty() && r.segments_dropped == 0))
    return;
  s.unreported.group = s.setup.group;
  caf::anon_send(s.setup.supervisor,
                 msg::build(msg::Metrics{s.setup.name, steady_now_ns(), s.unreported}));
  s.unreported = {};
}

void finish_if_done(self_ptr self) {
  auto& s = self->state;
  if (!s.draining || s.in_flight > 0 || s.finished) return;
  for (const auto& b : s.buffers)
    if (b.awaiting_answer) return;
  s.finished = true;
  report(self);
  if (s.setup.supervisor) caf::anon_send(s.setup.supervisor, finished_atom::value, s.setup.id);
}

// A segment's credit is back: the trainer acknowledged it, or a stage dropped it.
void credit_returned(self_ptr self) {
  auto& s = self->state;
  s.waiting_for_credit.stop(s.setup.track.get());
  --s.in_flight;
  request_all(self);
  finish_if_done(self);
}

// How long a sampler waits for a lost replica or trainer to be replaced.
caf::timespan replacement_wait(const SamplerSetup& setup) {
  return std::chrono::duration_cast<caf::timespan>(
      std::chrono::duration<double>(setup.replacement_timeout_s));
}

// A request to trainer `asked` failed. A trainer that is gone (the supervisor may restart it) is
// waited for; any other error ends the sampler.
void on_trainer_error(self_ptr self, const segment_sink_actor& asked, const caf::error& e) {
  auto& s = self->state;
  if (asked != s.setup.trainer) return;  // the lost trainer's: shipped again to its successor
  if (!actor_gone(e))
    return self->quit(make_error(
        errc::no_answer, s.setup.name + ": the trainer refused a segment: " + describe(e)));
  if (s.trainer.start(replacement_wait(s.setup)))
    self->delayed_send(self, replacement_wait(s.setup), trainer_atom::value);
}

// Ships unacknowledged segment `delivery` to the current trainer.
void send_to_trainer(self_ptr self, uint64_t delivery) {
  auto& s = self->state;
  const auto asked = s.setup.trainer;
  self->request(asked, data_plane, s.unacknowledged.at(delivery))
      .then(
          [self, asked, delivery](uint64_t) {
            auto& s = self->state;
            if (asked != s.setup.trainer) return;  // shipped again to the lost one's successor
            s.unacknowledged.erase(delivery);
            credit_returned(self);
          },
          [self, asked](caf::error& e) { on_trainer_error(self, asked, e); });
}

void to_trainer(self_ptr self, msg::SegmentFrame frame) {
  auto& s = self->state;
  const auto delivery = s.next_delivery++;
  s.unacknowledged.emplace(delivery, std::move(frame));
  if (!s.trainer.lost()) send_to_trainer(self, delivery);
}

// The supervisor restarted the trainer: what the lost one did not acknowledge goes to this one.
void on_trainer(self_ptr self, const segment_sink_actor& trainer) {
  auto& s = self->state;
  s.setup.trainer = trainer;
  s.trainer.replaced();
  for (const auto& unacknowledged : s.unacknowledged) send_to_trainer(self, unacknowledged.first);
}

// Passes a segment through the graph's stages from `stage` on, then to the trainer.
void deliver(self_ptr self, msg::SegmentFrame frame, size_t stage, bool last) {
  auto& s = self->state;
  if (stage == s.setup.stages.size()) return to_trainer(self, std::move(frame));
  const auto& [name, actor] = s.setup.stages[stage];
  self->request(actor, data_plane, std::move(frame))
      .then(
          [self, stage, last](msg::SegmentFrame& out) {
            if (!out.empty()) return deliver(self, std::move(out), stage + 1, last);
            auto& s = self->state;
            ++s.unreported.segments_dropped;
            // The trainer waits for a sampler's final segment in lock-step: it is told instead.
            if (last) caf::anon_send(s.setup.trainer, finished_atom::value, s.setup.id);
            credit_returned(self);
          },
          [self, name = name](caf::error& e) {
            self->quit(make_error(errc::no_answer, self->state.setup.name + ": stage '" + name +
                                                       "' failed on a segment: " + describe(e)));
          });
}

// `last`: the buffer's final segment.
void ship_segment(self_ptr self, EnvBuffer& b, const float* bootstrap_values, bool last) {
  auto& s = self->state;
  ScopedWork work(s.setup.track.get(), "ship_segment");
  const auto first_env = static_cast<uint32_t>(b.index * b.env->size());
  // The env has not stepped since the observation that `bootstrap_values` value.
  if (s.setup.bootstrap_observations) b.segment->observe_after(b.env->output());
  auto frame =
      b.segment->finish(s.setup.id, s.segment_sequence++, bootstrap_values, last, first_env);
  if (b.holds_credit) --s.reserved;
  b.holds_credit = false;
  ++s.in_flight;
  if (s.setup.track) s.setup.track->queue_depth(s.in_flight);
  // The report goes first: an uplink to a remote learner ships it with this segment, counted once
  // the segment is acknowledged.
  report(self);
  deliver(self, std::move(frame), 0, last);
}

// Sets a credit aside for b (kept until b's segment ships) if one is free.
bool reserve_credit(SamplerState& s, EnvBuffer& b) {
  if (b.holds_credit) return true;
  if (s.in_flight + s.reserved >= s.setup.segments_in_flight) return false;
  b.holds_credit = true;
  ++s.reserved;
  return true;
}

bool budget_spent(const SamplerState& s) {
  return s.setup.step_budget > 0 &&
         s.setup.steps_before + s.counted_steps >= s.setup.step_budget * s.envs;
}

// Runs f (a reset or step of b's envs), counting what the env's own threads spend on it (physics,
// rendering) as the sampling lane's CPU time besides the sampler's.
template <class F>
void count_env_threads(SamplerState& s, EnvBuffer& b, F&& f) {
  const int64_t before = b.env->worker_cpu_ns();
  f();
  if (auto* track = s.setup.track.get())
    track->add_cpu(Lane::sampling, b.env->worker_cpu_ns() - before);
}

void reset(SamplerState& s, EnvBuffer& b, const std::vector<uint64_t>& seeds) {
  ScopedWork work(s.setup.track.get(), "env_reset");
  count_env_threads(s, b, [&] { b.env->reset(seeds); });
}

void step(SamplerState& s, EnvBuffer& b, const msg::ActionBatch& answer) {
  ScopedWork work(s.setup.track.get(), "env_step");
  b.segment->begin_step(b.env->output(), answer);
  count_env_threads(s, b, [&] { b.env->step(answer.actions.data); });
  const auto& out = b.env->output();
  b.segment->end_step(out);
  for (size_t e = 0; e < b.env->size(); ++e) {
    if (!b.segment->last_step_valid(static_cast<int64_t>(e))) continue;
    ++s.unreported.env_steps;
    ++s.counted_steps;
    if (!out.episode_ended(e)) continue;
    s.unreported.episode_returns.push_back(out.episode_ends[e].episode_return);
    s.unreported.episode_successes.push_back(out.episode_ends[e].success);
  }
}

// The sampler as its collection strategy sees it.
class Shell final : public SamplerShell {
 public:
  explicit Shell(self_ptr self) : self_(self) {}
  void ship(EnvBuffer& b, const float* bootstrap_values, bool last) override {
    ship_segment(self_, b, bootstrap_values, last);
  }
  void step(EnvBuffer& b, const msg::ActionBatch& answer) override {
    dvla::actors::step(self_->state, b, answer);
  }
  void reset(EnvBuffer& b, const std::vector<uint64_t>& seeds) override {
    dvla::actors::reset(self_->state, b, seeds);
  }
  bool budget_spent() const override { return dvla::actors::budget_spent(self_->state); }
  bool reserve_credit(EnvBuffer& b) override {
    return dvla::actors::reserve_credit(self_->state, b);
  }
  bool draining() const override { return self_->state.draining; }
  void drain() override { self_->state.draining = true; }
  uint64_t seed() const override { return self_->state.setup.seed; }
  uint32_t id() const override { return self_->state.setup.id; }

 private:
  self_ptr self_;
};

// An answer for a buffer's current observations: the collection strategy ships and steps with
// it; then the buffer asks for its next actions, or the sampler finishes.
void on_answer(self_ptr self, EnvBuffer& b, const msg::ActionFrame& frame) {
  auto& s = self->state;
  b.awaiting_answer = false;
  b.waiting_for_actions.stop(s.setup.track.get());
  auto answer = msg::read(frame);
  if (!answer) {
    report_rejected(s.setup.supervisor, s.setup.name, answer.error().message());
    if (++s.malformed_answers >= max_malformed_answers)
      self->quit(make_error(errc::malformed_message,
                            s.setup.name + ": inference keeps answering with malformed frames"));
    else
      request_actions(self, b);
    return;
  }
  s.malformed_answers = 0;
  Shell shell(self);
  s.collection->on_answer(b, *answer, shell);
  request_actions(self, b);
  finish_if_done(self);
}

// A request to `asked` failed. A replica that is gone (it failed, and the supervisor restarts it)
// is waited for; any other error ends the sampler.
void on_inference_error(self_ptr self, const inference_actor& asked, const caf::error& e) {
  auto& s = self->state;
  if (asked != s.setup.inference) return;  // a lost replica's: asked again of its successor
  if (!actor_gone(e))
    return self->quit(make_error(
        errc::no_answer, s.setup.name + ": inference did not answer: " + describe(e)));
  if (s.replica.start(replacement_wait(s.setup)))
    self->delayed_send(self, replacement_wait(s.setup), replica_atom::value);
}

// The supervisor restarted the sampler's replica: what the lost one held is asked again.
void on_replica(self_ptr self, const inference_actor& replica) {
  auto& s = self->state;
  s.setup.inference = replica;
  s.replica.replaced();
  for (auto& b : s.buffers) b.awaiting_answer = false;
  request_all(self);
}

void request_actions(self_ptr self, EnvBuffer& b) {
  auto& s = self->state;
  if (s.paused || b.awaiting_answer || s.finished || s.replica.lost()) return;
  if (!s.collection->wants_actions(b, s.draining)) return;
  // Lock-step: after every segment, wait for the trainer's acknowledgement.
  if (!s.collection->may_request(s.in_flight)) return s.waiting_for_credit.start("wait_credit");
  // A segment this answer starts or closes needs a credit, set aside now so that buffers cannot
  // overdraw.
  if (s.collection->needs_credit(b, s.draining) && !reserve_credit(s, b))
    return s.waiting_for_credit.start("wait_credit");
  ScopedWork work(s.setup.track.get(), "send_observations");
  msg::ObservationBatch request;
  request.sampler_id = s.setup.id;
  request.sequence = s.observation_sequence++;
  request.observations = observations_of(b.env->output(), b.env->spec());
  b.awaiting_answer = true;
  b.waiting_for_actions.start("wait_actions");
  // An answer of a replica that has been replaced meanwhile is dropped: the buffer asked again.
  auto answered = [self, index = b.index, asked = s.setup.inference](const msg::ActionFrame& f) {
    if (asked == self->state.setup.inference) on_answer(self, self->state.buffers[index], f);
  };
  self->request(s.setup.inference, data_plane, msg::build(request))
      .then(answered, [self, asked = s.setup.inference](caf::error& e) {
        on_inference_error(self, asked, e);
      });
}

// An order from the control plane (sent urgent, so it overtakes queued answers).
caf::result<uint64_t> on_control(self_ptr self, const msg::ControlFrame& frame) {
  auto& s = self->state;
  auto command = msg::read(frame);
  if (!command)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  command.error().message());
  switch (command->kind) {
    case msg::Command::pause:
      s.paused = true;
      break;
    case msg::Command::resume:
      s.paused = false;
      request_all(self);
      break;
    case msg::Command::shutdown:
      self->quit();
      break;
    case msg::Command::ping:
      break;
    case msg::Command::checkpoint:
    case msg::Command::evaluate:
      return make_error(errc::bad_setup, s.setup.name + " does not take '" +
                                             std::string(to_text(command->kind)) + "' orders");
  }
  return command->request_id;
}

// Builds the buffers' envs and segments; checks that the collection can work with them.
void build_buffers(SamplerState& s) {
  const int count = s.collection->buffers(s.setup.env_buffers);
  if (count < 1 || s.setup.envs % static_cast<size_t>(count) != 0)
    throw std::invalid_argument(s.setup.name + ": " + std::to_string(s.setup.envs) +
                                " envs do not split into " + std::to_string(count) + " buffers");
  for (int i = 0; i < count; ++i) {
    EnvBuffer b;
    b.index = static_cast<uint32_t>(i);
    b.env = s.setup.make_env(s.setup.envs / static_cast<size_t>(count));
    if (!b.env) throw std::invalid_argument(s.setup.name + ": the env factory returned nothing");
    int64_t length = 0;
    try {
      length = s.collection->segment_length(*b.env, s.setup.segment_length);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(s.setup.name + ": " + e.what());
    }
    b.segment = std::make_unique<SegmentBuilder>(
        b.env->spec(), static_cast<int64_t>(b.env->size()), length,
        s.setup.sim_lease ? static_cast<std::pmr::memory_resource*>(s.setup.sim_lease.get())
                          : std::pmr::get_default_resource());
    s.envs += b.env->size();
    s.buffers.push_back(std::move(b));
  }
}

// Its lost `peer` was not replaced in time: the sampler ends, saying so.
void give_up_if_overdue(self_ptr self, const LostPeer& lost, const char* peer) {
  if (!lost.overdue()) return;
  const auto& setup = self->state.setup;
  self->quit(make_error(errc::no_answer,
                        fmt::format("{}: its {} was lost and not replaced within {:g} s",
                                    setup.name, peer, setup.replacement_timeout_s)));
}

sampler_actor::behavior_type sampler(self_ptr self, SamplerSetup setup) {
  name_failures(self, setup.name);
  auto& s = self->state;
  s.setup = std::move(setup);
  // First: its envs' threads inherit both.
  apply_placement(s.setup.placement, s.setup.name);
  if (auto lowered = lower_this_thread_priority(s.setup.nice_steps); !lowered)
    throw std::runtime_error(s.setup.name + ": " + lowered.error().message());
  s.collection = make_collection(s.setup.group_size, s.setup.lock_step);
  build_buffers(s);
  return {
      [self](start_atom) {
        auto& s = self->state;
        Shell shell(self);
        for (auto& b : s.buffers) s.collection->start(b, shell);
        request_all(self);
      },
      [self](const msg::ControlFrame& frame) { return on_control(self, frame); },
      [self](replica_atom, const inference_actor& replica) { on_replica(self, replica); },
      [self](replica_atom) {
        give_up_if_overdue(self, self->state.replica, "inference replica");
      },
      [self](trainer_atom, const segment_sink_actor& trainer) { on_trainer(self, trainer); },
      [self](trainer_atom) { give_up_if_overdue(self, self->state.trainer, "trainer"); },
  };
}

}  // namespace

sampler_actor spawn_sampler(caf::actor_system& system, SamplerSetup setup) {
  return system.spawn<caf::detached>(sampler, std::move(setup));
}

}  // namespace dvla::actors
