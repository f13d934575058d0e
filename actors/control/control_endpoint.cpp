#include <dvla/actors/control/control_endpoint.hpp>

#include <caf/all.hpp>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/control_command.hpp>

namespace dvla::actors {
namespace {

struct EndpointState {
  ControlEndpointSetup setup;
};

using self_ptr = control_endpoint_actor::stateful_pointer<EndpointState>;
using Ack = caf::result<uint64_t, int64_t>;

int64_t idle_ns(const EndpointState& s) {
  if (!s.setup.track) return -1;
  const int64_t last = s.setup.track->last_active_ns();
  return last > 0 ? trace_clock_ns() - last : -1;
}

// An order the data actor applies itself: urgent, so queued data does not delay it.
Ack pass_on(self_ptr self, const msg::ControlFrame& frame, uint64_t id) {
  auto& s = self->state;
  auto promise = self->make_response_promise<uint64_t, int64_t>();
  self->request<caf::message_priority::high>(s.setup.data_actor, timeout_of(s.setup.timeout_s),
                                             frame)
      .then([self, promise, id](uint64_t) mutable { promise.deliver(id, idle_ns(self->state)); },
            [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  return promise;
}

Ack on_command(self_ptr self, const msg::ControlFrame& frame) {
  auto& s = self->state;
  auto command = msg::read(frame);
  if (!command)
    return refuse(s.setup.supervisor, s.setup.name + "/control", errc::malformed_message,
                  command.error().message());
  const auto id = command->request_id;
  switch (command->kind) {
    case msg::Command::ping:
      return {id, idle_ns(s)};
    case msg::Command::pause:
    case msg::Command::resume:
      if (s.setup.takes_orders) return pass_on(self, frame, id);
      break;
    case msg::Command::shutdown:
      self->send_exit(s.setup.data_actor, caf::exit_reason::user_shutdown);
      self->quit();
      return {id, idle_ns(s)};
    case msg::Command::checkpoint:
    case msg::Command::evaluate:
      break;
  }
  return make_error(errc::bad_setup, s.setup.name + " does not take '" +
                                         std::string(to_text(command->kind)) + "' orders");
}

control_endpoint_actor::behavior_type endpoint(self_ptr self, ControlEndpointSetup setup) {
  name_failures(self, setup.name + "/control");
  self->state.setup = std::move(setup);
  return {[self](const msg::ControlFrame& frame) { return on_command(self, frame); },
          [self](replace_atom, const caf::actor& restarted) {
            self->state.setup.data_actor = restarted;
          }};
}

}  // namespace

control_endpoint_actor spawn_control_endpoint(caf::actor_system& system,
                                              ControlEndpointSetup setup) {
  // Scheduled, not detached: it only answers and forwards, on threads no lane computes on.
  return system.spawn(endpoint, std::move(setup));
}

}  // namespace dvla::actors
