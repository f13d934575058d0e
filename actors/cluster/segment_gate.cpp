#include <dvla/actors/cluster/segment_gate.hpp>

#include <caf/all.hpp>

#include <dvla/actors/cluster/segment_intake.hpp>
#include <dvla/actors/support/actor_support.hpp>

namespace dvla::actors {
namespace {

using self_ptr = segment_gate_actor::stateful_pointer<SegmentGateSetup>;

segment_gate_actor::behavior_type segment_gate(self_ptr self, SegmentGateSetup setup) {
  name_failures(self, "segment gate");
  self->state = std::move(setup);
  return {
      [self](join_atom, uint32_t node, const std::string& name) {
        auto& s = self->state;
        auto intake = spawn_segment_intake(self->system(), {node, name, s.trainer, s.supervisor});
        self->link_to(intake);  // it ends with the gate, at the run's end
        return intake;
      },
  };
}

}  // namespace

segment_gate_actor spawn_segment_gate(caf::actor_system& system, SegmentGateSetup setup) {
  return system.spawn(segment_gate, std::move(setup));
}

}  // namespace dvla::actors
