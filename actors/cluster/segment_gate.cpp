#include <dvla/actors/cluster/segment_gate.hpp>

#include <caf/all.hpp>

#include <set>

#include <dvla/actors/cluster/segment_intake.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/sender_check.hpp>

namespace dvla::actors {
namespace {

struct SegmentGateState {
  SegmentGateSetup setup;
  std::set<uint32_t> opened;  // nodes that have their intake
};

using self_ptr = segment_gate_actor::stateful_pointer<SegmentGateState>;

caf::error refuse_join(self_ptr self, const std::string& why) {
  self->send(self->state.setup.coordinator, refused_atom::value, sender_node(self),
             std::string("segment intake"), why);
  return make_error(errc::not_allowed, why);
}

caf::result<segment_intake_actor> join(self_ptr self, uint32_t node, const std::string& name) {
  auto& s = self->state;
  const auto process = sender_node(self);
  if (!process) return refuse_join(self, "an intake asked for anonymously");
  if (s.opened.count(node))
    return refuse_join(self, "a second intake for node " + std::to_string(node));
  auto promise = self->make_response_promise<segment_intake_actor>();
  self->request(s.setup.coordinator, caf::infinite, intake_atom::value, process, node, name)
      .then(
          [self, promise, process](const NodeAssignment& a) mutable {
            auto& s = self->state;
            if (!s.opened.insert(a.node).second) {
              promise.deliver(make_error(errc::not_allowed,
                                         "a second intake for node " + std::to_string(a.node)));
              return;
            }
            SegmentIntakeSetup intake{a, process, s.setup.groups.at(a.group).max_segment_steps,
                                      s.setup.trainer, s.setup.supervisor, s.setup.coordinator};
            auto handle = spawn_segment_intake(self->system(), std::move(intake));
            self->link_to(handle);  // it ends with the gate, at the run's end
            promise.deliver(handle);
          },
          [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  return promise;
}

segment_gate_actor::behavior_type segment_gate(self_ptr self, SegmentGateSetup setup) {
  name_failures(self, "segment gate");
  self->state.setup = std::move(setup);
  refuse_other_messages(self, self->state.setup.coordinator, "the segment gate");
  return {
      [self](join_atom, uint32_t node, const std::string& name) { return join(self, node, name); },
  };
}

}  // namespace

segment_gate_actor spawn_segment_gate(caf::actor_system& system, SegmentGateSetup setup) {
  return system.spawn(segment_gate, std::move(setup));
}

}  // namespace dvla::actors
