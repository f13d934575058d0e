#pragma once
// Coordinator (control plane): the door nodes join a multi-node run through, published on
// cluster.listen. It sizes and numbers each node (NodeAssignment: the run's config, its samplers
// of one env group, the one furthest below its share, their envs and its replicas), watches it
// (CAF's heartbeats make a killed, cut-off or hung node's handle go down within
// cluster.connection_timeout_s), adds its control endpoints to the control plane when it is
// ready, and holds its start until cluster.nodes are in (or cluster.join_timeout_s passed: then
// it goes on with those there are). A node that joins later — a new one, or a lost one
// restarted — starts at once; the data plane's gate has given it the current weights before.
// A lost node is reported to the supervisor and its endpoints leave the control plane; the run
// goes on. With no node and no sampler of its own at the join timeout, it ends the run.
//
// It also keeps the relay tree (runtime/distribution/relay_tree): each node, once it published
// its distributor on the weights plane, is told where its weights come from — the learner for the
// first distribution.fanout nodes, then the earlier nodes, breadth first; the children of a lost
// node are told to take the next version from its parent.
#include <caf/actor_system.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/scheduled_actor.hpp>

#include <atomic>
#include <memory>
#include <vector>

#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/cluster/cluster_credentials.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla::actors {

struct CoordinatorSetup {
  Config config;  // the run's: its text goes to every node
  supervisor_actor supervisor;
  control_plane_actor control;
  // The gate's port: the gate is spawned with the coordinator's handle, so its port is known
  // after the coordinator started; it is set before the door is published (no node joins
  // earlier), and read only then.
  std::shared_ptr<const std::atomic<uint16_t>> data_port;
  // The port of the learner's distributor (the root of the relay tree), on the weights plane:
  // published after the coordinator (its door's refusals go to the coordinator), set likewise.
  std::shared_ptr<const std::atomic<uint16_t>> weights_port;
  std::string address;            // where it listens, for the log
  // The graph's env groups: each node's samplers go to the group furthest below its share.
  std::vector<GroupShape> groups;
  std::string graph_shape;  // graph_shape() of the coordinator's graph, which nodes must match
  // Where each node's segment intake runs and whom it passes segments to (the data plane).
  caf::actor_system* data_system = nullptr;
  trainer_actor trainer;
  // With TLS: the coordinator's certificate and key (it proves itself to each node) and the CA
  // (each node proves itself: its certificate's name is the name it joins under). None: plain
  // TCP, names as the nodes say.
  std::optional<ClusterCredentials> credentials;
  // Each plane's middleman of this process: where a peer is connected (for refusal lines), and
  // whose connections a peer past cluster.max_refusals has (peer_connections.hpp).
  std::vector<caf::io::middleman_actor> middlemen;
};

// The coordinator behind its door: the door's requests (the same checks apply: a peer can reach
// it by its handle, since it messages the nodes), and what only this process may ask:
// (release): the run is over, every node is told to stop, answered with how many acknowledged;
// (quorum): its join timer; (intake, process, node, name): the data plane's gate asks for the
// segment intake of the node that process joined as — spawned once per node, bound to it, an
// error for any other process or a second time; (refused, process, kind, why): a message of that
// process was refused on the coordinator's side — logged once per peer and kind, counted against
// its node; a node past cluster.max_refusals is cut off: lost (its intake and reports end, its
// acknowledged env steps stay counted), told to stop, and its process may not join again.
using coordinator_core_actor = coordinator_actor::extend<
    caf::replies_to<release_atom>::with<uint32_t>, caf::reacts_to<quorum_atom>,
    caf::replies_to<intake_atom, caf::node_id, uint32_t, std::string>::with<segment_intake_actor>,
    caf::reacts_to<refused_atom, caf::node_id, std::string, std::string>>;

struct Coordinator {
  coordinator_actor door;  // published on cluster.listen; it passes each request to `core`
  coordinator_core_actor core;
};

Coordinator spawn_coordinator(caf::actor_system& system, CoordinatorSetup setup);

// Makes `self`, an actor the coordinator spawned for one node (its intake, its reports), end with
// the coordinator. Watched, not linked: its own end (a node cut off) must not end the coordinator.
void end_with(caf::scheduled_actor* self, const coordinator_core_actor& core);

// Makes `self`, an actor a peer can reach, refuse every message outside its interface: answered
// with an error, counted by `core` against the sender (`whose`: the actor, for the log).
void refuse_other_messages(caf::scheduled_actor* self, coordinator_core_actor core,
                           std::string whose);

}  // namespace dvla::actors
