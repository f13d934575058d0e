#include <dvla/actors/learning/trainer.hpp>

#include <ATen/Parallel.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>
#include <caf/all.hpp>

#include <algorithm>
#include <tuple>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/messages/version_announcement.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/config/learning_rate_schedule.hpp>
#include <dvla/runtime/lanes/lock_step.hpp>
#include <dvla/runtime/learners/flat_adam.hpp>
#include <dvla/runtime/learners/learner_algorithm.hpp>
#include <dvla/runtime/learners/ppo.hpp>
#include <dvla/runtime/learners/training_batch.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/trajectories/observation_check.hpp>
#include <dvla/runtime/versions/staleness.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla::actors {
namespace {

struct Admitted {
  msg::SegmentFrame frame;  // keeps the views below alive
  msg::TrajectorySegment segment;
};

// A checkpoint asked for during an update: saved once the update is complete, so that weights,
// optimizer state and RNG belong to one version.
struct PendingCheckpoint {
  caf::typed_response_promise<std::string, msg::WeightsFrame> promise;
  uint64_t env_steps, episodes;
};

struct TrainerState {
  TrainerSetup setup;
  std::shared_ptr<Policy> policy;
  std::shared_ptr<Policy> reference;  // the starting policy, for a KL term; null without one
  std::unique_ptr<FlatParameters> parameters;
  std::unique_ptr<PpoLearner> learner;
  LearningRateSchedule learning_rates;
  std::unique_ptr<StalenessBound> staleness;
  std::unique_ptr<CheckpointStore> checkpoints;  // null without a checkpoint root
  std::vector<PendingCheckpoint> pending_checkpoints;
  std::vector<Admitted> buffer;
  std::vector<caf::typed_response_promise<uint64_t>> held_acks;  // of segments in `buffer`
  std::unique_ptr<LockStep> lock_step;                           // mode = sync only
  int64_t buffered_samples = 0;
  bool train_scheduled = false;
  PolicyLagCounts batch_lag;  // policy lag of the update in progress
  uint64_t version = 0;
  uint64_t samples_trained = 0;
  msg::WeightsFrame published;  // the frame of `version`
};

std::string segment_mismatch(const msg::TrajectorySegment& s, const envs::EnvSpec& spec) {
  if (auto m = observation_mismatch(s.observations, 2, spec); !m.empty()) return "segment " + m;
  if (s.actions.dim(2) != spec.action.tensor_dim())
    return "segment actions of size " + std::to_string(s.actions.dim(2)) + ", this policy has " +
           std::to_string(spec.action.tensor_dim());
  return {};
}

// Acknowledges every held segment with the current version: their samplers go on.
void release_acks(TrainerState& s) {
  for (auto& ack : s.held_acks) ack.deliver(s.version);
  s.held_acks.clear();
  if (s.lock_step) s.lock_step->release();
}

// Sends the current version to the distributor (and so to every replica) and announces it.
// `release`: the held acknowledgements follow once every replica has the new weights (lock-step).
void publish(trainer_actor::stateful_pointer<TrainerState> self, double policy_lag_mean,
             bool release = false) {
  auto& s = self->state;
  {
    ScopedWork work(s.setup.track.get(), Lane::distribution, "publish_weights");
    s.published = s.parameters->to_frame(s.version);
  }
  if (!s.setup.distributor && release) release_acks(s);
  if (s.setup.distributor)
    self->request(s.setup.distributor, timeout_of(s.setup.timeout_s), s.published)
        .then(
            [self, release](uint64_t) {
              if (release) release_acks(self->state);
            },
            [self](caf::error& e) {
              self->quit(make_error(
                  errc::no_answer,
                  self->state.setup.name + ": distributing weights failed: " + describe(e)));
            });
  if (s.setup.supervisor) {
    msg::VersionAnnouncement v;
    v.version = s.version;
    v.samples_trained = s.samples_trained;
    v.samples_dropped = s.staleness->dropped();
    v.policy_lag_mean = policy_lag_mean;
    caf::anon_send(s.setup.supervisor, msg::build(v));
  }
}

// The update's statistics and the lag of its samples (`policy_lag_<versions>`: samples), as
// metrics for the supervisor (and so progress logs).
void report(const TrainerState& s, const PpoStats& stats, const PolicyLagCounts& lag) {
  if (!s.setup.supervisor) return;
  msg::LearningReport r;
  r.version = s.version;
  r.stats.samples = static_cast<uint64_t>(stats.samples);
  r.stats.policy_loss = stats.policy_loss;
  r.stats.value_loss = stats.value_loss;
  r.stats.entropy = stats.entropy;
  r.stats.approx_kl = stats.approx_kl;
  r.stats.clip_fraction = stats.clip_fraction;
  r.stats.reference_kl = stats.reference_kl;
  r.stats.learning_rate = stats.learning_rate;
  r.stats.importance_weight_max = stats.importance_weight_max;
  r.stats.importance_weight_ess = stats.importance_weight_ess;
  r.policy_lag = lag.samples;
  caf::anon_send(s.setup.supervisor, msg::build(msg::Metrics{s.setup.name, steady_now_ns(), r}));
}

Expected<std::string> save_checkpoint(TrainerState& s, uint64_t env_steps, uint64_t episodes) {
  if (!s.checkpoints) return Error("checkpoints need a logdir");
  ScopedWork work(s.setup.track.get(), "checkpoint");
  CheckpointState state;
  state.version = s.version;
  state.env_steps = env_steps;
  state.samples_trained = s.samples_trained;
  state.episodes = episodes;
  state.rng_state = s.learner->rng_state();
  state.learning_rate_factor = s.learner->learning_rate_factor();
  state.algorithm_state = s.setup.algorithm->checkpoint_state();
  return s.checkpoints->save(s.setup.config, s.published, state,
                             [&] { return s.learner->optimizer().state_bytes(); });
}

void deliver(TrainerState& s, PendingCheckpoint& p) {
  if (auto dir = save_checkpoint(s, p.env_steps, p.episodes))
    p.promise.deliver(*dir, s.published);
  else
    p.promise.deliver(make_error(errc::bad_setup, s.setup.name + ": " + dir.error().message()));
}

void schedule_training(trainer_actor::stateful_pointer<TrainerState> self) {
  auto& s = self->state;
  if (s.train_scheduled || s.learner->updating()) return;
  if (s.buffered_samples < s.setup.config.ppo.batch_size) return;
  s.train_scheduled = true;
  // Queued behind the segments already waiting, so they join this batch.
  self->send(self, train_atom::value);
}

// Starts an update on the buffered segments. Its gradient steps run one per message, so that
// segments keep being acknowledged (and samplers keep their credits) during a long update.
void train(trainer_actor::stateful_pointer<TrainerState> self) {
  auto& s = self->state;
  s.train_scheduled = false;
  if (s.learner->updating() || s.buffered_samples < s.setup.config.ppo.batch_size) return;
  ScopedWork work(s.setup.track.get(), "prepare_batch");
  std::vector<msg::TrajectorySegment> segments;
  segments.reserve(s.buffer.size());
  for (const auto& a : s.buffer) segments.push_back(a.segment);
  // In sampler order, not arrival order: a sync run's batches (and so the run) are reproducible.
  std::sort(segments.begin(), segments.end(), [](const auto& a, const auto& b) {
    return std::tie(a.sampler_id, a.first_env, a.sequence) <
           std::tie(b.sampler_id, b.first_env, b.sequence);
  });
  const auto& c = s.setup.config;
  auto batch = s.setup.algorithm->make_batch(segments, *s.policy, s.version);
  // The KL term's reference: the starting policy's log-probabilities of the batch's actions.
  if (s.reference && batch.size() > 0) {
    torch::NoGradGuard no_grad;
    const auto device = device_of(*s.reference);
    batch.reference_log_probs =
        s.reference->evaluate(batch.inputs.to(device), batch.actions.to(device))
            .log_probs.to(at::kCPU);
  }
  s.batch_lag = batch.policy_lag;
  const double scheduled = s.learning_rates.at(
      c.ppo.learning_rate_schedule_unit == ScheduleUnit::samples ? s.samples_trained : s.version);
  s.learner->set_learning_rate(annealed_rate(scheduled, c.ppo.learning_rate_anneal,
                                             s.samples_trained, c.run.max_env_steps));
  s.learner->begin(std::move(batch));
  s.buffer.clear();
  s.buffered_samples = 0;
  if (!s.lock_step) release_acks(s);  // lock-step: once the new weights are distributed
  self->send(self, step_atom::value);
}

void gradient_step(trainer_actor::stateful_pointer<TrainerState> self) {
  auto& s = self->state;
  bool more;
  {
    ScopedWork work(s.setup.track.get(), "gradient_step");
    more = s.learner->step();
  }
  // What the step computed with, read on this thread (a later setting would show).
  if (s.setup.track) s.setup.track->set_intra_op_threads(at::get_num_threads());
  if (more) {
    self->send(self, step_atom::value);
    return;
  }
  const auto stats = s.learner->stats();
  s.samples_trained += static_cast<uint64_t>(stats.samples);
  ++s.version;
  publish(self, s.batch_lag.mean(), /*release=*/s.lock_step != nullptr);
  report(s, stats, s.batch_lag);
  for (auto& p : s.pending_checkpoints) deliver(s, p);
  s.pending_checkpoints.clear();
  schedule_training(self);
  // Async: segments held during the update go on now unless the next update takes them.
  if (!s.lock_step && !s.train_scheduled) release_acks(s);
}

// Buffers a valid segment unless it carries no signal (GRPO) or is too stale.
void admit(TrainerState& s, const msg::SegmentFrame& frame, msg::TrajectorySegment segment) {
  const int64_t samples = s.setup.algorithm->samples(segment);
  if (samples == 0) return;
  if (!s.staleness->admit(s.version, segment.oldest_version(), static_cast<uint64_t>(samples)))
    return;
  s.buffer.push_back({frame, std::move(segment)});
  s.buffered_samples += samples;
  if (s.setup.track) s.setup.track->queue_depth(static_cast<int64_t>(s.buffer.size()));
}

// Lock-step: once every sampler waits, train on a gathered batch (the samplers go on when the
// new weights are distributed) or let them collect more with this version.
void end_round_if_complete(trainer_actor::stateful_pointer<TrainerState> self) {
  auto& s = self->state;
  if (!s.lock_step->round_complete() || s.train_scheduled || s.learner->updating()) return;
  if (s.buffered_samples >= s.setup.config.ppo.batch_size)
    schedule_training(self);
  else
    release_acks(s);
}

caf::result<uint64_t> on_segment(trainer_actor::stateful_pointer<TrainerState> self,
                                 const msg::SegmentFrame& frame) {
  auto& s = self->state;
  auto segment = msg::read(frame);
  if (!segment)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  segment.error().message());
  auto mismatch = segment_mismatch(*segment, s.setup.spec);
  if (mismatch.empty()) mismatch = s.setup.algorithm->mismatch(*segment);
  if (!mismatch.empty())
    return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message, mismatch);
  const auto sampler = segment->sampler_id;
  const bool last = segment->last;
  // Async: a segment that arrives while an update runs (or is about to) keeps its sampler's
  // credit until the update ends. Samplers start segments only with a credit, so they collect at
  // most their credits' worth during an update, then wait at segment starts and go on with the
  // new weights: data is one version old, not two, and a slow learner slows the samplers.
  const bool hold = s.lock_step || s.learner->updating() || s.train_scheduled;
  admit(s, frame, std::move(*segment));
  if (!hold) {
    schedule_training(self);
    return s.version;
  }
  s.held_acks.push_back(self->make_response_promise<uint64_t>());
  auto ack = s.held_acks.back();
  if (s.lock_step) {
    s.lock_step->waiting(sampler, last);
    end_round_if_complete(self);
  }
  return ack;
}

// Continues from a checkpoint: its weights, optimizer moments, version, counters and shuffler.
void restore(TrainerState& s, const Checkpoint& c) {
  auto fail = [&](const Error& e) {
    throw std::invalid_argument(s.setup.name + ": cannot resume: " + e.message());
  };
  auto update = msg::read(c.weights);
  if (!update) fail(update.error());
  if (auto loaded = s.parameters->load(*update); !loaded) fail(loaded.error());
  if (!c.optimizer_path.empty())
    if (auto loaded = s.learner->optimizer().load_state(c.optimizer_path); !loaded)
      fail(loaded.error());
  if (!c.state.rng_state.empty())
    if (auto set = s.learner->set_rng_state(c.state.rng_state); !set) fail(set.error());
  s.learner->set_learning_rate_factor(c.state.learning_rate_factor);
  if (auto restored = s.setup.algorithm->restore_state(c.state.algorithm_state); !restored)
    fail(restored.error());
  s.version = c.state.version;
  s.samples_trained = c.state.samples_trained;
}

trainer_actor::behavior_type trainer(trainer_actor::stateful_pointer<TrainerState> self,
                                     TrainerSetup setup) {
  name_failures(self, setup.name);
  auto& s = self->state;
  s.setup = std::move(setup);
  apply_placement(s.setup.placement, s.setup.name);
  use_intra_op_threads(training_torch_threads(s.setup.config.graph));
  s.policy = s.setup.make_policy();
  if (!s.policy)
    throw std::invalid_argument(s.setup.name + ": the policy factory returned nothing");
  s.parameters = std::make_unique<FlatParameters>(*s.policy, s.setup.model_lease);
  if (!s.setup.algorithm) throw std::invalid_argument(s.setup.name + ": no learner algorithm");
  s.learner = std::make_unique<PpoLearner>(
      *s.policy, s.setup.algorithm->objective(s.setup.config.ppo), s.setup.seed);
  const auto& ppo = s.setup.config.ppo;
  s.learning_rates =
      LearningRateSchedule::parse(ppo.learning_rate, ppo.learning_rate_schedule).value();
  if (s.setup.config.ppo.kl_coef > 0) s.reference = s.setup.make_policy();
  const auto& after = s.setup.continue_after;
  s.staleness = std::make_unique<StalenessBound>(
      static_cast<uint64_t>(s.setup.config.ppo.max_policy_lag), after ? after->samples_dropped : 0);
  if (!s.setup.checkpoint_root.empty())
    s.checkpoints = std::make_unique<CheckpointStore>(s.setup.checkpoint_root,
                                                      s.setup.config.run.checkpoint_keep);
  if (s.setup.resume) restore(s, *s.setup.resume);
  if (after) {
    s.version = std::max(s.version, after->version) + 1;
    s.samples_trained = std::max(s.samples_trained, after->samples_trained);
  }
  if (s.setup.lock_step_samplers > 0)
    s.lock_step = std::make_unique<LockStep>(s.setup.lock_step_samplers);
  s.published = s.parameters->to_frame(s.version);
  return {
      [self](const msg::SegmentFrame& frame) { return on_segment(self, frame); },
      [self](weights_atom) { return self->state.published; },
      [self](checkpoint_atom, uint64_t env_steps, uint64_t episodes) {
        auto& s = self->state;
        PendingCheckpoint p{self->make_response_promise<std::string, msg::WeightsFrame>(),
                            env_steps, episodes};
        if (s.learner->updating())
          s.pending_checkpoints.push_back(p);
        else
          deliver(s, p);
        return p.promise;
      },
      [self](evaluated_atom, const std::string& dir, double success, double mean_return) {
        auto& s = self->state;
        if (!s.checkpoints) return;
        if (auto recorded = s.checkpoints->record_evaluation(dir, success, mean_return); !recorded)
          self->quit(make_error(errc::bad_setup, s.setup.name + ": " + recorded.error().message()));
      },
      [self](finished_atom, uint32_t sampler) {
        auto& s = self->state;
        if (!s.lock_step) return;
        s.lock_step->leave(sampler);
        end_round_if_complete(self);
      },
      [self](start_atom) { publish(self, 0.0); },
      [self](train_atom) { train(self); },
      [self](step_atom) { gradient_step(self); },
  };
}

}  // namespace

trainer_actor spawn_trainer(caf::actor_system& system, TrainerSetup setup) {
  return system.spawn<caf::detached>(trainer, std::move(setup));
}

}  // namespace dvla::actors
