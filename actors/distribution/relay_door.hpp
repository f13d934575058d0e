#pragma once
// RelayDoor (weights plane): what a distributor shows the network — the learner's on the
// coordinator, a relay node's to the nodes below it. A node attaches its distributor through it
// (passed on to the distributor, with the node as the sender); any other message is refused, so
// that no peer can hand the distributor a version of its own through the published port.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

// `supervisor` (may be null) counts what the door refuses. With `coordinator` (the coordinator's
// core: its own door, the learner's) each refusal goes there instead, as (refused, node, kind,
// why): said once per peer and kind, counted against the peer, which past cluster.max_refusals is
// disconnected.
relay_door_actor spawn_relay_door(caf::actor_system& system, distributor_actor distributor,
                                  caf::actor supervisor = {}, caf::actor coordinator = {});

}  // namespace dvla::actors
