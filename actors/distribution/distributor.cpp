#include <dvla/actors/distribution/distributor.hpp>

#include <caf/all.hpp>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>

namespace dvla::actors {
namespace {

// A distributor attached downstream (another node's). Remote hops have no backpressure of their
// own, so each downstream holds one update in flight at most: updates that come meanwhile are
// coalesced into the latest, sent once it answers.
struct Downstream {
  std::string name;
  distributor_actor actor;
  bool busy = false;                                            // an update is on its way to it
  uint64_t sent_version = 0;                                    // the last version it was sent
  bool has_weights = false;                                     // it acknowledged one
  std::vector<caf::typed_response_promise<uint64_t>> attached;  // answered with its first weights
};

struct DistributorState {
  DistributorSetup setup;
  std::map<caf::actor_addr, Downstream> downstream;
  msg::WeightsFrame latest;  // what a distributor that attaches gets first
  uint64_t latest_version = 0;
};

using self_ptr = distributor_actor::stateful_pointer<DistributorState>;

// Stages `update` into every local replica; the error says why one refused it.
caf::error stage_locally(DistributorState& s, const msg::WeightUpdate& update) {
  for (const auto& replica : s.setup.replicas) {
    ScopedWork work(s.setup.track.get(), "stage_weights");
    if (auto staged = replica->stage(update); !staged)
      return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message,
                    staged.error().message());
  }
  return {};
}

// A downstream that failed to take an update leaves (its node is gone or hangs: the supervisor
// deals with the node); the run goes on without it.
void drop(self_ptr self, const caf::actor_addr& address, const caf::error& why) {
  auto& s = self->state;
  auto it = s.downstream.find(address);
  if (it == s.downstream.end()) return;
  auto error = make_error(errc::no_answer, "distributor '" + it->second.name +
                                               "' did not take the weights: " + describe(why));
  for (auto& a : it->second.attached) a.deliver(error);
  self->demonitor(address);
  s.downstream.erase(it);
}

// Sends the latest weights to one downstream unless it still has an update in flight.
void send_latest(self_ptr self, Downstream& d) {
  auto& s = self->state;
  if (d.busy || s.latest.empty() || (d.has_weights && d.sent_version == s.latest_version)) return;
  d.busy = true;
  d.sent_version = s.latest_version;
  const auto address = d.actor.address();
  const uint64_t bytes = s.latest.size();
  self->request(d.actor, timeout_of(s.setup.timeout_s), s.latest)
      .then(
          [self, address, bytes](uint64_t version) {
            auto& s = self->state;
            auto it = s.downstream.find(address);
            if (it == s.downstream.end()) return;
            auto& d = it->second;
            d.busy = false;
            d.has_weights = true;
            for (auto& a : std::exchange(d.attached, {})) a.deliver(version);
            if (s.setup.supervisor)
              caf::anon_send(s.setup.supervisor, delivered_atom::value, d.name, version, bytes);
            send_latest(self, d);  // a newer update came meanwhile
          },
          [self, address](caf::error& e) { drop(self, address, e); });
}

// Answered once the local replicas have staged the update; downstream distributors get it as
// their credit allows (remote hops must not hold up the learner).
caf::result<uint64_t> distribute(self_ptr self, const msg::WeightsFrame& frame) {
  auto& s = self->state;
  if (s.setup.replicas.empty() && s.downstream.empty())
    return make_error(errc::bad_setup, "no inference replica to feed");
  auto update = msg::read(frame);
  if (!update)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  update.error().message());
  if (auto refused = stage_locally(s, *update)) return refused;
  s.latest = frame;
  s.latest_version = update->version;
  for (auto& [address, d] : s.downstream) send_latest(self, d);
  return update->version;
}

// Another distributor joins downstream: it gets the latest weights first (the answer is their
// version, once it has them; before any weights, with the first update), then every update.
caf::result<uint64_t> attach(self_ptr self, const std::string& name, const caf::actor& actor) {
  auto& s = self->state;
  auto to = caf::actor_cast<distributor_actor>(actor);
  if (!to) return make_error(errc::bad_setup, "distributor '" + name + "' is not reachable");
  self->monitor(to);  // a downstream that ends (a lost node) leaves: see the down handler
  auto& d = s.downstream[to.address()];
  d.name = name;
  d.actor = to;
  auto promise = self->make_response_promise<uint64_t>();
  d.attached.push_back(promise);
  send_latest(self, d);
  return promise;
}

distributor_actor::behavior_type distributor(self_ptr self, DistributorSetup setup) {
  name_failures(self, setup.name);
  self->state.setup = std::move(setup);
  // A weight copy is bound by memory bandwidth: one thread, whatever the lanes around use.
  use_intra_op_threads(1);
  self->set_down_handler([self](caf::down_msg& down) { drop(self, down.source, down.reason); });
  return {
      [self](const msg::WeightsFrame& frame) { return distribute(self, frame); },
      [self](attach_atom, const std::string& name, const caf::actor& downstream) {
        return attach(self, name, downstream);
      },
  };
}

}  // namespace

distributor_actor spawn_distributor(caf::actor_system& system, DistributorSetup setup) {
  // Detached: weight transfers run on a thread of their own (lane 4), never on the scheduler.
  return system.spawn<caf::detached>(distributor, std::move(setup));
}

}  // namespace dvla::actors
