#pragma once
// Who sent the message an actor is handling, as far as CAF 0.17 can tell, for the handlers a peer
// can reach. BASP delivers a peer's message to any actor of ours whose handle ever crossed to any
// peer (published, sent, or the sender of a message to a remote actor), so such a handler checks
// the sender itself: that it is this process (internal messages), or the process admitted for
// that role (a node's intake, its relay parent, its coordinator).
//
// What CAF gives: a direct message names the connection's node; an anonymous one names nobody
// (refused wherever the sender matters); a routed one names the node its sender wrote, so a
// connected peer (mutual TLS admits only holders of the cluster CA's certificates) could claim
// another's node: docs/multi-node.md, "Threat model".
#include <caf/local_actor.hpp>
#include <caf/node_id.hpp>

#include <string>

namespace dvla::actors {

// The node of the message's sender; an invalid node_id when it came anonymously.
caf::node_id sender_node(caf::local_actor* self);

// Whether `a` and `b` are actor systems of one process: dvla runs one system per plane, and CAF
// gives each the process's node id but for its last byte.
bool same_process(const caf::node_id& a, const caf::node_id& b);
// The process of `node` as text, alike for all its systems ("" for no node): what a join
// challenge is issued to.
std::string process_text(const caf::node_id& node);

// Whether the message came from an actor of this process (any of its planes' systems).
bool from_this_process(caf::local_actor* self);

// Whether it came from the process of `expected` (a peer admitted for that role).
bool from_process_of(caf::local_actor* self, const caf::node_id& expected);

// "node HASH#PID" of the sender, or "an anonymous sender": for refusal lines.
std::string sender_text(caf::local_actor* self);

}  // namespace dvla::actors
