#pragma once
// ClusterTally: the nodes of a multi-node run as the coordinator's supervisor sees them — who
// joined with what, what each hosts, what the learner acknowledged from each (env steps, segments,
// bytes, lag), what weights each got, and who was lost and why. Plain data in, plain data out.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/cluster/node_info.hpp>
#include <dvla/runtime/run/run_status.hpp>

namespace dvla {

class ClusterTally {
 public:
  using Clock = std::chrono::steady_clock;

  // The coordinator's own samplers, when it hosts some: node 0.
  void add_coordinator(uint32_t samplers, const GroupShape& group, uint32_t replicas,
                       Clock::time_point now = Clock::now());
  void joined(const NodeInfo& info, const NodeAssignment& assignment);
  // Its samplers took their first step: its rate counts from here.
  void running(uint32_t node, Clock::time_point now = Clock::now());
  // The text names the node and what it hosted; an error for a node it does not know (or lost).
  Expected<std::string> lost(uint32_t node, const std::string& why);
  // A segment of `node` the learner acknowledged: the env steps it carried, its size, its policy
  // lag and the oldest version that acted in it; false: no such node.
  bool acknowledged(uint32_t node, uint64_t env_steps, uint64_t bytes, uint64_t policy_lag,
                    uint64_t oldest_version);
  // Its distributor acknowledged `version` (an update of `bytes`); by the name it attached with.
  void weights_delivered(const std::string& name, uint64_t version, uint64_t bytes);
  // `node` takes its weights from `from` (the learner, or a relay node's name).
  void weights_from(uint32_t node, const std::string& from);
  // A message of `node` was refused (it is not its to send, or out of bounds).
  void refused(uint32_t node);
  // A control round to its endpoints and back took `us`; by name, like weights_delivered.
  void round_trip(const std::string& name, double us);

  size_t running_nodes() const;  // joined or running, not lost
  uint64_t env_steps() const;    // over every node, lost ones included
  std::vector<NodeStatus> status(Clock::time_point now = Clock::now()) const;
  // Newest minus oldest weights version among the running nodes that have weights (0 with
  // fewer than two): how far apart the replicas of the cluster act.
  uint64_t version_skew() const;

 private:
  struct Node {
    NodeStatus status;
    Clock::time_point started{};  // when its samplers started; epoch: not yet
    uint64_t lag_sum = 0;
    uint32_t first_sampler = 0;
  };
  std::map<uint32_t, Node> nodes_;
};

}  // namespace dvla
