#include <dvla/runtime/cluster/cluster_tally.hpp>

#include <algorithm>
#include <optional>

#include <fmt/core.h>

namespace dvla {

void ClusterTally::add_coordinator(uint32_t samplers, const GroupShape& group, uint32_t replicas,
                                   Clock::time_point now) {
  auto& n = nodes_[0];
  n.status.id = 0;
  n.status.name = "coordinator";
  n.status.state = "running";
  n.status.samplers = samplers;
  n.status.group = group.name;
  n.status.envs = samplers * group.envs_per_sampler;
  n.status.replicas = replicas;
  n.started = now;
}

void ClusterTally::joined(const NodeInfo& info, const NodeAssignment& a) {
  auto& n = nodes_[a.node];
  n = Node{};
  n.status.id = a.node;
  n.status.name = a.name;
  n.status.host = info.host;
  n.status.state = "joining";
  n.status.cores = info.cores;
  n.status.gpus = info.gpus;
  n.status.samplers = a.samplers;
  n.status.group = a.group_name;
  n.status.envs = a.samplers * a.envs_per_sampler;
  n.status.replicas = a.replicas;
  n.first_sampler = a.first_sampler;
}

void ClusterTally::running(uint32_t node, Clock::time_point now) {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it->second.status.state != "joining") return;
  it->second.status.state = "running";
  it->second.started = now;
}

Expected<std::string> ClusterTally::lost(uint32_t node, const std::string& why) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return Error("node " + std::to_string(node) + " never joined");
  auto& s = it->second.status;
  if (s.state == "lost") return Error("node '" + s.name + "' was lost before");
  s.state = "lost";
  s.lost_reason = why;
  const auto first = it->second.first_sampler;
  return fmt::format(
      "node '{}' (host {}) lost: {}; it hosted samplers {}..{} ({} envs), {} inference "
      "replica(s) and a distributor; its {} acknowledged env steps stay counted, its segments "
      "not yet acknowledged are discarded; training goes on with {} node(s)",
      s.name, s.host, why, first, first + s.samplers - 1, s.envs, s.replicas, s.env_steps,
      running_nodes());
}

bool ClusterTally::acknowledged(uint32_t node, uint64_t env_steps, uint64_t bytes,
                                uint64_t policy_lag, uint64_t oldest_version) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  auto& n = it->second;
  if (n.status.segments == 0) n.status.first_segment_version = oldest_version;
  n.status.env_steps += env_steps;
  ++n.status.segments;
  n.status.segment_bytes += bytes;
  n.lag_sum += policy_lag;
  return true;
}

void ClusterTally::weights_delivered(const std::string& name, uint64_t version, uint64_t bytes) {
  for (auto& [id, n] : nodes_) {
    // By name: a lost node's restart rejoins under its old name, as a new node.
    if (n.status.name != name || n.status.state == "lost") continue;
    if (n.status.weight_updates == 0) n.status.start_version = version;
    n.status.weights_version = std::max(n.status.weights_version, version);
    ++n.status.weight_updates;
    n.status.weight_bytes += bytes;
  }
}

void ClusterTally::weights_from(uint32_t node, const std::string& from) {
  if (auto it = nodes_.find(node); it != nodes_.end()) it->second.status.weights_from = from;
}

uint64_t ClusterTally::version_skew() const {
  std::optional<uint64_t> newest, oldest;
  for (const auto& [id, n] : nodes_) {
    const auto& s = n.status;
    if (id == 0 || s.state == "lost" || s.weight_updates == 0) continue;
    newest = std::max(newest.value_or(s.weights_version), s.weights_version);
    oldest = std::min(oldest.value_or(s.weights_version), s.weights_version);
  }
  return newest ? *newest - *oldest : 0;
}

void ClusterTally::round_trip(const std::string& name, double us) {
  for (auto& [id, n] : nodes_)
    if (n.status.name == name && n.status.state != "lost") n.status.control_rtt_us = us;
}

size_t ClusterTally::running_nodes() const {
  size_t count = 0;
  for (const auto& [id, n] : nodes_) count += id != 0 && n.status.state != "lost";
  return count;
}

uint64_t ClusterTally::env_steps() const {
  uint64_t sum = 0;
  for (const auto& [id, n] : nodes_) sum += n.status.env_steps;
  return sum;
}

std::vector<NodeStatus> ClusterTally::status(Clock::time_point now) const {
  std::vector<NodeStatus> out;
  for (const auto& [id, n] : nodes_) {
    auto s = n.status;
    if (s.segments > 0)
      s.policy_lag_mean = static_cast<double>(n.lag_sum) / static_cast<double>(s.segments);
    const double seconds = std::chrono::duration<double>(now - n.started).count();
    if (n.started != Clock::time_point{} && seconds > 0 && s.state == "running")
      s.steps_per_second = static_cast<double>(s.env_steps) / seconds;
    out.push_back(std::move(s));
  }
  return out;
}

void ClusterTally::refused(uint32_t node) {
  if (auto it = nodes_.find(node); it != nodes_.end()) ++it->second.status.refused;
}

}  // namespace dvla
