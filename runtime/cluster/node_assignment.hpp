#pragma once
// NodeAssignment: the coordinator's answer to a node that joins — the run's config and the part of
// the graph the node hosts: its samplers (ids first_sampler...) of one env group, their envs, its
// inference replicas; and where the data plane listens.
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/cluster/node_info.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

struct NodeAssignment {
  uint32_t node = 0;           // the node's number in this run (1, 2, ...; the coordinator is 0)
  std::string name;            // the node's name, as the run's status and log call it
  std::string config_text;     // the run's config (dump_config: the text config.txt holds)
  uint32_t first_sampler = 0;  // the node's sampler ids are first_sampler, first_sampler + 1, ...
  uint32_t samplers = 0;
  uint32_t envs_per_sampler = 0;
  uint32_t replicas = 0;
  uint16_t data_port = 0;  // the coordinator's data plane, on the host the node dialled
  uint32_t group = 0;       // the env group (index in the graph) its samplers belong to
  std::string group_name;   // that group's name, for the log
  std::string graph_shape;  // the coordinator's graph_shape(): a node must build the same graph
};

// One env group of the run's graph as the coordinator places it on nodes.
struct GroupShape {
  std::string name;
  uint32_t samplers = 0;  // what the graph asks for: the groups' shares of the nodes' samplers
  uint32_t envs_per_sampler = 0;
  // The most steps one of its segments may hold (graph.segment_length, or a whole episode where
  // segments are episodes): a node's segment beyond it is refused.
  uint32_t max_segment_steps = 0;
};

// The group a joining node's samplers go to: the one furthest below its share (samplers placed
// so far over the samplers the graph asks for), the first of equals. `placed` has one count per
// group.
uint32_t next_group(const std::vector<GroupShape>& groups, const std::vector<uint32_t>& placed);

// How many samplers a node hosts: what it asked for, else cluster.node_samplers, else half its
// cores (at least one).
uint32_t node_samplers(const ClusterConfig& cluster, const NodeInfo& node);

// The run's config as the node sees it: the assignment's text, parsed and checked; the node keeps
// its own cluster settings (its addresses and certificates are its own) and drops the
// coordinator's paths (logdir, trace, model.init: its replicas get the learner's weights).
Expected<Config> node_config(const NodeAssignment& assignment, const ClusterConfig& own);

}  // namespace dvla
