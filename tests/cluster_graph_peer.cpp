// dvla-test-graph-peer: a user's program that runs its own graph across processes, for
// test_cluster. The graph has two env groups (CartPole, 2 samplers x 8 envs, served by pool
// "inference"; a synthetic env with CartPole's spec, 1 sampler x 4 envs, served by pool
// "synthetic-inference") and a stage that passes every segment on and counts them.
//   dvla-test-graph-peer coordinator ENV_STEPS   runs the coordinator on 127.0.0.1 (a free port,
//                                                 logged), waits for 2 nodes, and prints per group
//                                                 and per node "group NAME ENV_STEPS", "node NAME
//                                                 ENV_STEPS" and "total ENV_STEPS"
//   dvla-test-graph-peer node PORT NAME           runs a node of the same graph and prints
//                                                 "stage segments N": how many its stage passed on
#include <unistd.h>
#include <caf/all.hpp>

#include <atomic>
#include <iostream>
#include <memory>
#include <string>

#include <dvla/actors/cluster/node.hpp>
#include <dvla/actors/graph/training.hpp>
#include <dvla/actors/graph/user_actors.hpp>
#include "synthetic_group.hpp"

using namespace dvla;

namespace {

// Passes every segment on unchanged, counting them.
actors::stage_actor::behavior_type count_segments(actors::stage_actor::pointer,
                                                  std::shared_ptr<std::atomic<int>> segments) {
  return {[segments](const msg::SegmentFrame& frame) -> caf::result<msg::SegmentFrame> {
    ++*segments;
    return frame;
  }};
}

Graph two_groups(const Config& config, std::shared_ptr<std::atomic<int>> segments) {
  auto graph = default_graph(config);
  test::add_synthetic_group(graph);
  add_stage(graph, "count", [segments](caf::actor_system& system) {
    return system.spawn(count_segments, segments);
  });
  return graph;
}

ClusterConfig fast_heartbeats() {
  ClusterConfig c;
  c.heartbeat_interval_s = 0.2;
  c.connection_timeout_s = 2;
  return c;
}

int coordinator(uint64_t env_steps) {
  Config config;
  config.run.seed = 7;
  config.run.max_env_steps = env_steps;
  config.run.eval_episodes = 2;
  config.cluster = fast_heartbeats();
  config.cluster.listen = "127.0.0.1:0";
  config.cluster.nodes = 2;
  auto segments = std::make_shared<std::atomic<int>>(0);
  auto result = train(config, two_groups(config, segments));
  if (!result) {
    std::cerr << "dvla-test-graph-peer: " << result.error().message() << "\n";
    return 1;
  }
  for (const auto& g : result->status.groups)
    std::cout << "group " << g.name << " " << g.env_steps << "\n";
  for (const auto& n : result->status.nodes)
    std::cout << "node " << n.name << " " << n.env_steps << "\n";
  std::cout << "total " << result->status.env_steps << "\n";
  return 0;
}

int node(uint16_t port, const std::string& name) {
  auto segments = std::make_shared<std::atomic<int>>(0);
  NodeSetup setup;
  setup.coordinator = {"127.0.0.1", port};
  setup.name = name;
  setup.samplers = 1;
  setup.cluster = fast_heartbeats();
  setup.make_graph = [segments](const Config& config) { return two_groups(config, segments); };
  auto outcome = run_node(setup);
  if (!outcome) {
    std::cerr << "dvla-test-graph-peer: " << outcome.error().message() << "\n";
    return 1;
  }
  std::cout << "stage segments " << segments->load() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  alarm(600);  // never outlive a test that forgot us
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "coordinator" && argc == 3) return coordinator(std::stoull(argv[2]));
  if (mode == "node" && argc == 4) return node(static_cast<uint16_t>(std::stoi(argv[2])), argv[3]);
  std::cerr << "usage: dvla-test-graph-peer coordinator ENV_STEPS | node PORT NAME\n";
  return 2;
}
