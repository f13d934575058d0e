#include "actors/trainer.hpp"

#include <torch/optim/adam.h>
#include <caf/all.hpp>

#include "actors/actor_support.hpp"
#include "actors/frame_inspect.hpp"
#include "messages/trajectory_segment.hpp"
#include "messages/version_announcement.hpp"
#include "runtime/flat_parameters.hpp"
#include "runtime/observation_check.hpp"
#include "runtime/policy.hpp"
#include "runtime/ppo.hpp"
#include "runtime/staleness.hpp"
#include "runtime/training_batch.hpp"

namespace dvla::actors {
namespace {

struct Admitted {
  msg::SegmentFrame frame;  // keeps the views below alive
  msg::TrajectorySegment segment;
};

struct TrainerState {
  TrainerSetup setup;
  std::shared_ptr<Policy> policy;
  std::unique_ptr<FlatParameters> parameters;
  std::unique_ptr<PpoLearner> learner;
  std::unique_ptr<StalenessBound> staleness;
  std::vector<Admitted> buffer;
  int64_t buffered_samples = 0;
  bool train_scheduled = false;
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

// Sends the current version to the distributor (and so to every replica) and announces it.
void publish(trainer_actor::stateful_pointer<TrainerState> self, double policy_lag_mean) {
  auto& s = self->state;
  s.published = s.parameters->to_frame(s.version);
  if (s.setup.distributor)
    self->request(s.setup.distributor, timeout_of(s.setup.timeout_s), s.published)
        .then([](uint64_t) {},
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

void train(trainer_actor::stateful_pointer<TrainerState> self) {
  auto& s = self->state;
  s.train_scheduled = false;
  if (s.buffered_samples < s.setup.ppo.batch_size) return;
  std::vector<msg::TrajectorySegment> segments;
  segments.reserve(s.buffer.size());
  for (const auto& a : s.buffer) segments.push_back(a.segment);
  const auto batch = make_training_batch(segments, *s.policy, static_cast<float>(s.setup.ppo.gamma),
                                         static_cast<float>(s.setup.ppo.gae_lambda), s.version);
  s.learner->update(batch);
  s.buffer.clear();
  s.buffered_samples = 0;
  s.samples_trained += static_cast<uint64_t>(batch.size());
  ++s.version;
  publish(self, batch.policy_lag_mean);
}

trainer_actor::behavior_type trainer(trainer_actor::stateful_pointer<TrainerState> self,
                                     TrainerSetup setup) {
  name_failures(self, setup.name);
  auto& s = self->state;
  s.setup = std::move(setup);
  s.policy = s.setup.make_policy();
  if (!s.policy)
    throw std::invalid_argument(s.setup.name + ": the policy factory returned nothing");
  s.parameters = std::make_unique<FlatParameters>(*s.policy);
  s.learner = std::make_unique<PpoLearner>(*s.policy, s.setup.ppo, s.setup.seed);
  s.staleness = std::make_unique<StalenessBound>(static_cast<uint64_t>(s.setup.ppo.max_policy_lag));
  s.published = s.parameters->to_frame(0);
  return {
      [self](const msg::SegmentFrame& frame) -> caf::result<uint64_t> {
        auto& s = self->state;
        auto segment = msg::read(frame);
        if (!segment)
          return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                        segment.error().message());
        if (auto mismatch = segment_mismatch(*segment, s.setup.spec); !mismatch.empty())
          return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message, mismatch);
        const int64_t samples = segment->steps() * segment->envs();
        if (s.staleness->admit(s.version, segment->oldest_version(),
                               static_cast<uint64_t>(samples))) {
          s.buffer.push_back({frame, std::move(*segment)});
          s.buffered_samples += samples;
          // Queued behind the segments already waiting, so they join this batch.
          if (s.buffered_samples >= s.setup.ppo.batch_size && !s.train_scheduled) {
            s.train_scheduled = true;
            self->send(self, train_atom::value);
          }
        }
        return s.version;
      },
      [self](weights_atom) { return self->state.published; },
      [self](start_atom) { publish(self, 0.0); },
      [self](train_atom) { train(self); },
  };
}

}  // namespace

trainer_actor spawn_trainer(caf::actor_system& system, TrainerSetup setup) {
  return system.spawn<caf::detached>(trainer, std::move(setup));
}

}  // namespace dvla::actors
