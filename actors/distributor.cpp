#include "actors/distributor.hpp"

#include <caf/all.hpp>

#include "actors/actor_support.hpp"
#include "actors/frame_inspect.hpp"

namespace dvla::actors {
namespace {

struct DistributorState {
  DistributorSetup setup;
};

distributor_actor::behavior_type distributor(
    distributor_actor::stateful_pointer<DistributorState> self, DistributorSetup setup) {
  name_failures(self, setup.name);
  self->state.setup = std::move(setup);
  return {
      [self](const msg::WeightsFrame& frame) -> caf::result<uint64_t> {
        const auto& replicas = self->state.setup.replicas;
        ScopedWork work(self->state.setup.track.get(), "fan_out");
        auto promise = self->make_response_promise<uint64_t>();
        if (replicas.empty()) return make_error(errc::bad_setup, "no inference replica to feed");
        auto remaining = std::make_shared<size_t>(replicas.size());
        for (const auto& replica : replicas)
          self->request(replica, timeout_of(self->state.setup.timeout_s), frame)
              .then(
                  [promise, remaining](uint64_t version) mutable {
                    if (--*remaining == 0) promise.deliver(version);
                  },
                  [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
        return promise;
      },
  };
}

}  // namespace

distributor_actor spawn_distributor(caf::actor_system& system, DistributorSetup setup) {
  // Detached: weight transfers run on a thread of their own (lane 4), never on the scheduler.
  return system.spawn<caf::detached>(distributor, std::move(setup));
}

}  // namespace dvla::actors
