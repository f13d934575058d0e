#pragma once
// A node of a multi-node run (dvla-node, or a user's program): joins the coordinator at
// `coordinator`, builds the part of the graph it is assigned (inference replicas, a distributor,
// samplers with their uplinks, and a control endpoint for each), attaches its distributor under
// the one the coordinator names — the learner's or a relay node's (it gets the current weights
// before any sampler steps) — and collects until the coordinator releases it. Observations and
// actions stay on the node; segments go to the learner, weights come from the relay tree on the
// weights plane's connections, control and reports travel on the control plane's. No CAF or
// LibTorch in this header.
#include <functional>
#include <string>

#include <dvla/actors/graph/graph.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/cluster_address.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/run/run_requests.hpp>

namespace dvla {

struct NodeSetup {
  ClusterAddress coordinator;
  std::string name;       // unique in the run; empty: HOST/PID
  uint32_t samplers = 0;  // samplers to ask for; 0: the coordinator's rule (cluster.node_samplers)
  // Where nodes that take their weights from this one (the relay tree) reach its distributor;
  // empty: 127.0.0.1 when the coordinator is on loopback, else this host's name.
  std::string relay_host;
  // This node's own: heartbeats and timeouts (set them as on the coordinator), certificates;
  // join_timeout_s is how long it keeps dialling a coordinator that is not up yet.
  ClusterConfig cluster;
  int scheduler_threads = 2;
  // The graph for the run's config, built as the coordinator builds it; empty: the default graph
  // (graph_of with default_graph_parts).
  std::function<Graph(const Config&)> make_graph;
  // The longest the node's actor systems may take to stop once the node is done; then the process
  // exits (status 0 for a node released or asked to stop, else 1) with a message.
  double teardown_timeout_s = 10;
  // Progress lines (joined, started, released); empty: stderr.
  std::function<void(const std::string&)> log;
};

struct NodeOutcome {
  uint32_t node = 0;  // its number in the run
  std::string why;    // why it stopped: "the run is over", or a stop request
};

// Secure by default: a node that dials its coordinator, or offers its relay, beyond this
// machine's loopback needs cluster.tls.* (or cluster.insecure = true); the error says so.
Status check_node_transport(const NodeSetup& setup);

// Runs the node until the coordinator releases it or `requests` asks it to stop. The error says
// what failed: the coordinator unreachable, refused or lost (the node stops; restart it to rejoin
// a new coordinator), or one of its actors, by name.
Expected<NodeOutcome> run_node(const NodeSetup& setup, const RunRequests* requests = nullptr);

}  // namespace dvla
