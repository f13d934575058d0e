#include "actors/distributor.hpp"

#include <caf/all.hpp>

#include "actors/actor_support.hpp"
#include "actors/frame_inspect.hpp"
#include "messages/weight_update.hpp"
#include "runtime/double_buffered_replica.hpp"
#include "runtime/intra_op_threads.hpp"

namespace dvla::actors {
namespace {

struct DistributorState {
  DistributorSetup setup;
};

using self_ptr = distributor_actor::stateful_pointer<DistributorState>;

caf::result<uint64_t> distribute(self_ptr self, const msg::WeightsFrame& frame) {
  auto& s = self->state;
  if (s.setup.replicas.empty()) return make_error(errc::bad_setup, "no inference replica to feed");
  auto update = msg::read(frame);
  if (!update)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  update.error().message());
  for (const auto& replica : s.setup.replicas) {
    ScopedWork work(s.setup.track.get(), "stage_weights");
    if (auto staged = replica->stage(*update); !staged)
      return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message,
                    staged.error().message());
  }
  return update->version;
}

distributor_actor::behavior_type distributor(self_ptr self, DistributorSetup setup) {
  name_failures(self, setup.name);
  self->state.setup = std::move(setup);
  // A weight copy is bound by memory bandwidth: one thread, whatever the lanes around use.
  use_intra_op_threads(1);
  return {[self](const msg::WeightsFrame& frame) { return distribute(self, frame); }};
}

}  // namespace

distributor_actor spawn_distributor(caf::actor_system& system, DistributorSetup setup) {
  // Detached: weight transfers run on a thread of their own (lane 4), never on the scheduler.
  return system.spawn<caf::detached>(distributor, std::move(setup));
}

}  // namespace dvla::actors
