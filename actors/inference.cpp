#include "actors/inference.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <caf/all.hpp>

#include <cstring>

#include "actors/actor_support.hpp"
#include "actors/frame_inspect.hpp"
#include "messages/action_batch.hpp"
#include "messages/observation_batch.hpp"
#include "messages/weight_update.hpp"
#include "runtime/flat_parameters.hpp"
#include "runtime/observation_check.hpp"
#include "runtime/policy.hpp"
#include "runtime/policy_input.hpp"

namespace dvla::actors {
namespace {

// A policy and its flat parameter buffer: one of the two weight buffers of a replica.
struct Replica {
  std::shared_ptr<Policy> policy;
  std::unique_ptr<FlatParameters> parameters;
  uint64_t version = 0;
};

struct Request {
  msg::ObservationFrame frame;  // keeps the observations below alive
  msg::ObservationBatch batch;
  caf::typed_response_promise<msg::ActionFrame> promise;
};

struct InferenceState {
  InferenceSetup setup;
  Replica active, staging;
  bool staged = false;
  std::vector<Request> pending;
  bool flush_scheduled = false;
  at::Generator generator;
};

Replica make_replica(const InferenceSetup& setup) {
  Replica r;
  r.policy = setup.make_policy();
  if (!r.policy) throw std::invalid_argument(setup.name + ": the policy factory returned nothing");
  r.parameters = std::make_unique<FlatParameters>(*r.policy);
  if (setup.initial_weights.size() == 0) return r;
  auto update = msg::read(setup.initial_weights);
  if (!update)
    throw std::invalid_argument(setup.name + ": initial weights: " + update.error().message());
  if (auto loaded = r.parameters->load(*update); !loaded)
    throw std::invalid_argument(setup.name + ": initial weights: " + loaded.error().message());
  r.version = update->version;
  return r;
}

// One forward pass over every waiting request; each gets its own rows back.
void flush(InferenceState& s) {
  s.flush_scheduled = false;
  if (s.staged) {
    std::swap(s.active, s.staging);
    s.staged = false;
  }
  if (s.pending.empty()) return;
  ScopedWork work(s.setup.track.get(), "forward");
  std::vector<PolicyInput> parts;
  for (const auto& r : s.pending) parts.push_back(policy_input(r.batch.observations, 1));
  // The observations are copied once, from the requests' frames into one batch.
  const auto input = concatenate(parts);
  const auto answer = s.active.policy->act(input, /*deterministic=*/false, s.generator);
  const auto actions = answer.actions.contiguous();
  const auto log_probs = answer.log_probs.contiguous();
  const auto values = answer.values.contiguous();
  const int64_t action_dim = actions.size(1);
  int64_t row = 0;
  for (auto& r : s.pending) {
    const int64_t n = r.batch.envs();
    msg::ActionBatch a;
    a.sampler_id = r.batch.sampler_id;
    a.sequence = r.batch.sequence;
    a.policy_version = s.active.version;
    a.actions = {actions.data_ptr<float>() + row * action_dim, {n, action_dim}};
    a.log_probs = {log_probs.data_ptr<float>() + row, {n}};
    a.values = {values.data_ptr<float>() + row, {n}};
    r.promise.deliver(msg::build(a));
    row += n;
  }
  s.pending.clear();
}

inference_actor::behavior_type inference(inference_actor::stateful_pointer<InferenceState> self,
                                         InferenceSetup setup) {
  name_failures(self, setup.name);
  auto& s = self->state;
  s.setup = std::move(setup);
  s.active = make_replica(s.setup);
  s.staging = make_replica(s.setup);
  s.generator = at::make_generator<at::CPUGeneratorImpl>(s.setup.seed);
  return {
      [self](const msg::ObservationFrame& frame) -> caf::result<msg::ActionFrame> {
        auto& s = self->state;
        auto batch = msg::read(frame);
        if (!batch)
          return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                        batch.error().message());
        if (auto mismatch = observation_mismatch(batch->observations, 1, s.setup.spec);
            !mismatch.empty())
          return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message, mismatch);
        auto promise = self->make_response_promise<msg::ActionFrame>();
        s.pending.push_back(Request{frame, std::move(*batch), promise});
        if (s.setup.track) s.setup.track->queue_depth(static_cast<int64_t>(s.pending.size()));
        // The flush is queued behind every request already in the mailbox, so one forward
        // pass serves all of them: batching without a timer.
        if (!s.flush_scheduled) {
          s.flush_scheduled = true;
          self->send(self, flush_atom::value);
        }
        return promise;
      },
      [self](flush_atom) { flush(self->state); },
      [self](const msg::WeightsFrame& frame) -> caf::result<uint64_t> {
        auto& s = self->state;
        ScopedWork work(s.setup.track.get(), Lane::distribution, "stage_weights");
        auto update = msg::read(frame);
        if (!update)
          return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                        update.error().message());
        if (auto loaded = s.staging.parameters->load(*update); !loaded)
          return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message,
                        loaded.error().message());
        s.staging.version = update->version;
        s.staged = true;
        return update->version;
      },
  };
}

}  // namespace

inference_actor spawn_inference(caf::actor_system& system, InferenceSetup setup) {
  return system.spawn<caf::detached>(inference, std::move(setup));
}

}  // namespace dvla::actors
