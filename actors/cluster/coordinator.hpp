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

#include <vector>

#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla::actors {

struct CoordinatorSetup {
  Config config;  // the run's: its text goes to every node
  supervisor_actor supervisor;
  control_plane_actor control;
  uint16_t data_port = 0;         // the gate's
  WeightsSource learner_weights;  // the learner's distributor: the root of the relay tree
  std::string address;            // where it listens, for the log
  // The graph's env groups: each node's samplers go to the group furthest below its share.
  std::vector<GroupShape> groups;
  std::string graph_shape;  // graph_shape() of the coordinator's graph, which nodes must match
};

coordinator_actor spawn_coordinator(caf::actor_system& system, CoordinatorSetup setup);

}  // namespace dvla::actors
