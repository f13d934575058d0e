#include <dvla/actors/cluster/segment_gate.hpp>

#include <caf/all.hpp>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/sender_check.hpp>

namespace dvla::actors {
namespace {

using self_ptr = segment_gate_actor::pointer;

segment_gate_actor::behavior_type segment_gate(self_ptr self, coordinator_core_actor coordinator) {
  name_failures(self, "segment gate");
  refuse_other_messages(self, coordinator, "the segment gate");
  return {
      [self, coordinator](join_atom, uint32_t node,
                          const std::string& name) -> caf::result<segment_intake_actor> {
        // The coordinator binds the intake to the process that asked, so it must have one.
        const auto process = sender_node(self);
        if (!process) {
          const std::string why = "an intake asked for anonymously";
          self->send(coordinator, refused_atom::value, process, std::string("segment intake"), why);
          return make_error(errc::not_allowed, why);
        }
        auto promise = self->make_response_promise<segment_intake_actor>();
        self->request(coordinator, caf::infinite, intake_atom::value, process, node, name)
            .then([promise](segment_intake_actor& intake) mutable { promise.deliver(intake); },
                  [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
        return promise;
      },
  };
}

}  // namespace

segment_gate_actor spawn_segment_gate(caf::actor_system& system,
                                      coordinator_core_actor coordinator) {
  return system.spawn(segment_gate, std::move(coordinator));
}

}  // namespace dvla::actors
