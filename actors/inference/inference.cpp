#include <dvla/actors/inference/inference.hpp>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <caf/all.hpp>

#include <cstring>
#include <map>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/action_batch.hpp>
#include <dvla/messages/observation_batch.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/trajectories/observation_check.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>

namespace dvla::actors {
namespace {

struct Request {
  msg::ObservationFrame frame;  // keeps the observations below alive
  msg::ObservationBatch batch;
  caf::typed_response_promise<msg::ActionFrame> promise;
};

struct InferenceState {
  InferenceSetup setup;
  std::vector<Request> pending;
  bool flush_scheduled = false;
  at::Generator generator;
  std::map<uint32_t, at::Generator> sampler_streams;  // setup.stream_per_sampler
  at::Device device = at::kCPU;  // where the replica's policies compute
};

// The stream sampler `id` draws from (setup.stream_per_sampler), made on its first request.
at::Generator& sampler_stream(InferenceState& s, uint32_t id) {
  auto found = s.sampler_streams.find(id);
  if (found == s.sampler_streams.end())
    found = s.sampler_streams
                .emplace(id, at::make_generator<at::CPUGeneratorImpl>(
                                 envs::derive_seeds(s.setup.seed, id, 1).front()))
                .first;
  return found->second;
}

// One forward pass over the requests [first, last), its actions drawn from `generator`; each
// request gets its own rows back.
void answer(InferenceState& s, Request* first, Request* last, at::Generator& generator) {
  std::vector<PolicyInput> parts;
  for (auto* r = first; r != last; ++r) parts.push_back(policy_input(r->batch.observations, 1));
  // The observations are copied once, from the requests' frames into one batch.
  // On a GPU, the batch goes there and the answers come back (on the host, no move at all).
  auto to_host = [&s](const at::Tensor& t) {
    return (s.device.is_cpu() ? t : t.to(at::kCPU)).contiguous();
  };
  auto input = concatenate(parts);
  if (!s.device.is_cpu()) input = input.to(s.device);
  const auto acted = s.setup.weights->active().act(input, /*deterministic=*/false, generator);
  const auto actions = to_host(acted.actions);
  const auto log_probs = to_host(acted.log_probs);
  const auto values = to_host(acted.values);
  const int64_t action_dim = actions.size(1);
  int64_t row = 0;
  for (auto* request = first; request != last; ++request) {
    auto& r = *request;
    const int64_t n = r.batch.envs();
    msg::ActionBatch a;
    a.sampler_id = r.batch.sampler_id;
    a.sequence = r.batch.sequence;
    a.policy_version = s.setup.weights->active_version();
    a.actions = {actions.data_ptr<float>() + row * action_dim, {n, action_dim}};
    a.log_probs = {log_probs.data_ptr<float>() + row, {n}};
    a.values = {values.data_ptr<float>() + row, {n}};
    r.promise.deliver(msg::build(a));
    row += n;
  }
}

// Answers every waiting request: in one forward pass, or (setup.stream_per_sampler) one pass per
// request, drawn from its sampler's stream, so that neither its draws nor its arithmetic depend on
// which other requests were waiting (a batch's row results can differ in the last bits with its
// size).
void flush(InferenceState& s) {
  s.flush_scheduled = false;
  s.setup.weights->swap_in_staged();
  if (s.pending.empty()) return;
  ScopedWork work(s.setup.track.get(), "forward");
  // What the forward pass computes with, read on this thread (a later setting would show).
  if (s.setup.track) s.setup.track->set_intra_op_threads(at::get_num_threads());
  if (s.setup.stream_per_sampler) {
    for (auto& r : s.pending) answer(s, &r, &r + 1, sampler_stream(s, r.batch.sampler_id));
  } else {
    answer(s, s.pending.data(), s.pending.data() + s.pending.size(), s.generator);
  }
  s.pending.clear();
}

inference_actor::behavior_type inference(inference_actor::stateful_pointer<InferenceState> self,
                                         InferenceSetup setup) {
  name_failures(self, setup.name);
  auto& s = self->state;
  s.setup = std::move(setup);
  if (!s.setup.weights) throw std::invalid_argument(s.setup.name + ": no weight buffers");
  apply_placement(s.setup.placement, s.setup.name);
  use_intra_op_threads(s.setup.torch_threads);
  s.device = device_of(s.setup.weights->active());
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
  };
}

}  // namespace

inference_actor spawn_inference(caf::actor_system& system, InferenceSetup setup) {
  return system.spawn<caf::detached>(inference, std::move(setup));
}

}  // namespace dvla::actors
