#include "actors/sampler.hpp"

#include <caf/all.hpp>

#include "actors/actor_support.hpp"
#include "actors/frame_inspect.hpp"
#include "messages/action_batch.hpp"
#include "messages/control_command.hpp"
#include "messages/metrics.hpp"
#include "messages/observation_batch.hpp"
#include "runtime/env_observations.hpp"
#include "runtime/segment_builder.hpp"

namespace dvla::actors {
namespace {

// Consecutive malformed answers from inference tolerated before the sampler gives up.
constexpr int max_malformed_answers = 3;

struct SamplerState {
  SamplerSetup setup;
  std::unique_ptr<envs::BatchedEnv> env;
  std::unique_ptr<SegmentBuilder> segment;
  uint64_t observation_sequence = 0;
  uint64_t segment_sequence = 0;
  uint64_t steps = 0;            // batched steps taken
  uint64_t counted_steps = 0;    // env steps within episodes (episodic: the valid ones)
  uint64_t round = 0;            // episodic: rounds of episodes started
  int in_flight = 0;             // segments the trainer has not acknowledged
  bool awaiting_answer = false;  // an observation request is out
  bool paused = false;
  bool draining = false;  // the step budget is spent
  bool finished = false;
  int malformed_answers = 0;
  uint64_t unreported_steps = 0;
  std::vector<double> unreported_returns, unreported_successes;
};

using self_ptr = sampler_actor::stateful_pointer<SamplerState>;

void request_actions(self_ptr self);

void report(self_ptr self) {
  auto& s = self->state;
  if (!s.setup.supervisor || (s.unreported_steps == 0 && s.unreported_returns.empty())) return;
  msg::Metrics m;
  m.source = s.setup.name;
  m.timestamp_ns = steady_now_ns();
  m.samples.emplace_back("env_steps", static_cast<double>(s.unreported_steps));
  for (size_t i = 0; i < s.unreported_returns.size(); ++i) {
    m.samples.emplace_back("episode_return", s.unreported_returns[i]);
    m.samples.emplace_back("episode_success", s.unreported_successes[i]);
  }
  caf::anon_send(s.setup.supervisor, msg::build(m));
  s.unreported_steps = 0;
  s.unreported_returns.clear();
  s.unreported_successes.clear();
}

void finish_if_done(self_ptr self) {
  auto& s = self->state;
  if (!s.draining || s.in_flight > 0 || s.awaiting_answer || s.finished) return;
  s.finished = true;
  report(self);
  if (s.setup.supervisor) caf::anon_send(s.setup.supervisor, finished_atom::value, s.setup.id);
}

void ship_segment(self_ptr self, const float* bootstrap_values) {
  auto& s = self->state;
  auto frame = s.segment->finish(s.setup.id, s.segment_sequence++, bootstrap_values);
  ++s.in_flight;
  self->request(s.setup.trainer, timeout_of(s.setup.timeout_s), std::move(frame))
      .then(
          [self](uint64_t) {
            auto& s = self->state;
            --s.in_flight;
            request_actions(self);
            finish_if_done(self);
          },
          [self](caf::error& e) {
            self->quit(make_error(
                errc::no_answer,
                self->state.setup.name + ": the trainer refused a segment: " + describe(e)));
          });
  report(self);
}

bool episodic(const SamplerState& s) { return s.setup.group_size > 0; }

bool budget_spent(const SamplerState& s) {
  return s.setup.step_budget > 0 && s.counted_steps >= s.setup.step_budget * s.env->size();
}

// Episodic: a round of episodes, each group of envs from one initial state of its own.
void start_round(SamplerState& s) {
  const auto envs = s.env->size();
  const auto group = static_cast<size_t>(s.setup.group_size);
  // Batch indices apart from the continuous samplers' (their ids) and from evaluation seeds.
  const uint64_t index = (uint64_t{1} << 39) | (uint64_t{s.setup.id} << 24) | s.round++;
  const auto group_seeds = envs::derive_seeds(s.setup.seed, index, envs / group);
  std::vector<uint64_t> seeds(envs);
  std::vector<int32_t> groups(envs);
  for (size_t e = 0; e < envs; ++e) {
    seeds[e] = group_seeds[e / group];
    groups[e] = static_cast<int32_t>(e / group);
  }
  s.env->reset(seeds);
  s.segment->start_episodes(std::move(groups));
}

void step(self_ptr self, const msg::ActionBatch& answer) {
  auto& s = self->state;
  s.segment->begin_step(s.env->output(), answer);
  s.env->step(answer.actions.data);
  const auto& out = s.env->output();
  s.segment->end_step(out);
  ++s.steps;
  for (size_t e = 0; e < s.env->size(); ++e) {
    if (!s.segment->last_step_valid(static_cast<int64_t>(e))) continue;
    ++s.unreported_steps;
    ++s.counted_steps;
    if (!out.episode_ended(e)) continue;
    s.unreported_returns.push_back(out.episode_ends[e].episode_return);
    s.unreported_successes.push_back(out.episode_ends[e].success ? 1.0 : 0.0);
  }
  if (!episodic(s) && budget_spent(s)) s.draining = true;
}

// Episodic: once every episode of the round has ended the segment ships (no bootstrapping: there
// is nothing after an ended episode) and the next round starts, unless the budget is spent.
void end_round_if_done(self_ptr self) {
  auto& s = self->state;
  if (!s.segment->episodes_ended()) return;
  const std::vector<float> no_bootstrap(s.env->size(), 0.f);
  ship_segment(self, no_bootstrap.data());
  if (budget_spent(s))
    s.draining = true;
  else
    start_round(s);
}

// An answer for the current observations: it closes a full segment (its values bootstrap it)
// and, unless the budget is spent, drives one env step.
void on_answer(self_ptr self, const msg::ActionFrame& frame) {
  auto& s = self->state;
  s.awaiting_answer = false;
  auto answer = msg::read(frame);
  if (!answer) {
    report_rejected(s.setup.supervisor, s.setup.name, answer.error().message());
    if (++s.malformed_answers >= max_malformed_answers)
      self->quit(make_error(errc::malformed_message,
                            s.setup.name + ": inference keeps answering with malformed frames"));
    else
      request_actions(self);
    return;
  }
  s.malformed_answers = 0;
  if (!episodic(s) && !s.segment->empty() && (s.segment->full() || s.draining))
    ship_segment(self, answer->values.data);
  if (s.draining || s.finished) return finish_if_done(self);
  step(self, *answer);
  if (episodic(s)) {
    end_round_if_done(self);
    if (s.draining) return finish_if_done(self);
  }
  request_actions(self);
}

void request_actions(self_ptr self) {
  auto& s = self->state;
  if (s.paused || s.awaiting_answer || s.finished) return;
  if (s.draining && s.segment->empty()) return;  // nothing left to bootstrap
  // At a segment boundary with every credit spent: wait for the trainer's acknowledgement.
  const bool boundary = episodic(s) ? s.segment->empty() : s.segment->full();
  if (s.in_flight >= s.setup.segments_in_flight && boundary) return;
  msg::ObservationBatch b;
  b.sampler_id = s.setup.id;
  b.sequence = s.observation_sequence++;
  b.observations = observations_of(s.env->output(), s.env->spec());
  s.awaiting_answer = true;
  self->request(s.setup.inference, timeout_of(s.setup.timeout_s), msg::build(b))
      .then([self](const msg::ActionFrame& f) { on_answer(self, f); },
            [self](caf::error& e) {
              self->quit(make_error(
                  errc::no_answer,
                  self->state.setup.name + ": inference did not answer: " + describe(e)));
            });
}

void on_control(self_ptr self, const msg::ControlFrame& frame) {
  auto& s = self->state;
  auto command = msg::read(frame);
  if (!command) return report_rejected(s.setup.supervisor, s.setup.name, command.error().message());
  switch (command->kind) {
    case msg::Command::pause:
      s.paused = true;
      break;
    case msg::Command::resume:
      s.paused = false;
      request_actions(self);
      break;
    case msg::Command::shutdown:
      self->quit();
      break;
    case msg::Command::ping:
    case msg::Command::checkpoint:
      break;
  }
}

sampler_actor::behavior_type sampler(self_ptr self, SamplerSetup setup) {
  name_failures(self, setup.name);
  auto& s = self->state;
  s.setup = std::move(setup);
  s.env = s.setup.make_env();
  if (!s.env) throw std::invalid_argument(s.setup.name + ": the env factory returned nothing");
  int64_t length = s.setup.segment_length;
  if (episodic(s)) {
    // A segment holds whole episodes: at least the env's time limit.
    const int limit = s.env->spec().max_episode_steps;
    if (limit <= 0)
      throw std::invalid_argument(s.setup.name + ": grpo needs episodes that end, but env '" +
                                  s.env->spec().name + "' has no time limit");
    if (s.env->size() % static_cast<size_t>(s.setup.group_size) != 0)
      throw std::invalid_argument(s.setup.name + ": groups of " +
                                  std::to_string(s.setup.group_size) + " do not divide " +
                                  std::to_string(s.env->size()) + " envs");
    length = std::max<int64_t>(length, limit);
  }
  s.segment =
      std::make_unique<SegmentBuilder>(s.env->spec(), static_cast<int64_t>(s.env->size()), length);
  return {
      [self](start_atom) {
        auto& s = self->state;
        if (episodic(s))
          start_round(s);
        else
          s.env->reset(envs::derive_seeds(s.setup.seed, s.setup.id, s.env->size()));
        request_actions(self);
      },
      [self](const msg::ControlFrame& frame) { on_control(self, frame); },
  };
}

}  // namespace

sampler_actor spawn_sampler(caf::actor_system& system, SamplerSetup setup) {
  return system.spawn<caf::detached>(sampler, std::move(setup));
}

}  // namespace dvla::actors
