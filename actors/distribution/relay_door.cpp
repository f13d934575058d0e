#include <dvla/actors/distribution/relay_door.hpp>

#include <caf/all.hpp>

#include <dvla/actors/atoms.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/sender_check.hpp>

namespace dvla::actors {
namespace {

relay_door_actor::behavior_type relay_door(relay_door_actor::pointer self,
                                           distributor_actor distributor, caf::actor supervisor,
                                           caf::actor coordinator) {
  self->set_default_handler(
      [supervisor, coordinator](caf::scheduled_actor* self,
                                caf::message_view&) -> caf::result<caf::message> {
        const auto why = "a message from " + sender_text(self) +
                         " refused: the weights plane's door takes attaches only";
        if (!coordinator) return refuse(supervisor, "relay door", errc::not_allowed, why);
        caf::send_as(caf::actor_cast<caf::actor>(self), coordinator, refused_atom::value,
                     sender_node(self), std::string("message to the weights plane's door"), why);
        return make_error(errc::not_allowed, why);
      });
  // The door ends with its distributor.
  self->monitor(distributor);
  self->set_down_handler([self](caf::down_msg& down) { self->quit(down.reason); });
  return {
      [self, distributor](attach_atom a, std::string& name, caf::actor& downstream) {
        return self->delegate(distributor, a, std::move(name), std::move(downstream));
      },
  };
}

}  // namespace

relay_door_actor spawn_relay_door(caf::actor_system& system, distributor_actor distributor,
                                  caf::actor supervisor, caf::actor coordinator) {
  return system.spawn(relay_door, std::move(distributor), std::move(supervisor),
                      std::move(coordinator));
}

}  // namespace dvla::actors
