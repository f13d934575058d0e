#pragma once
// PeerConnections (the coordinator's side): where a peer process is connected to this one, and
// ending its connections.
//
// CAF 0.17 names a message's sender by its node id only and offers no call to close one peer's
// connection. Each plane's middleman knows the address and port a directly connected node came
// from (get_atom, node_id), so this actor asks every plane's middleman: for the address in a
// refusal line, and to end the connections of a peer past cluster.max_refusals. Those are shut
// down at the socket (socket_peer.hpp): CAF's multiplexer sees the connection end and drops the
// peer as if it had hung up (with TLS too: the session reads the end).
#include <caf/actor_system.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/node_id.hpp>
#include <caf/typed_actor.hpp>

#include <string>
#include <vector>

#include <dvla/actors/atoms.hpp>

namespace dvla::actors {

// (locate, node): the "ADDRESS:PORT" of each connection the node has with this process (none
// when it is not connected directly). (disconnect, node): ends every connection of the node's
// process (every actor system of it: CAF numbers those by the last byte of the node id, and dvla
// runs one per plane); the endpoints it ended.
using peer_connections_actor = caf::typed_actor<
    caf::replies_to<locate_atom, caf::node_id>::with<std::vector<std::string>>,
    caf::replies_to<disconnect_atom, caf::node_id>::with<std::vector<std::string>>>;

// `middlemen`: the middleman of each plane's actor system of this process.
peer_connections_actor spawn_peer_connections(caf::actor_system& system,
                                              std::vector<caf::io::middleman_actor> middlemen);

// "ADDRESS:PORT, ..." for a log line; "no connection" for none.
std::string endpoints_text(const std::vector<std::string>& endpoints);

}  // namespace dvla::actors
