#include <dvla/actors/distribution/distributor.hpp>

#include <caf/all.hpp>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>

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
