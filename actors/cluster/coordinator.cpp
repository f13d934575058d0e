#include <dvla/actors/cluster/coordinator.hpp>

#include <fmt/core.h>
#include <caf/all.hpp>

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/distribution/relay_tree.hpp>

namespace dvla::actors {
namespace {

struct Member {
  NodeAssignment assignment;
  node_actor node;
  bool ready = false;
  bool lost = false;
  bool released = false;  // told the run is over: its end is no loss
};

struct CoordinatorState {
  CoordinatorSetup setup;
  std::optional<RelayTree> tree;  // set with the setup (distribution.fanout)
  std::map<uint32_t, WeightsSource> relays;  // each node's published distributor
  std::string config_text;
  uint32_t next_node = 1;  // 0 is the coordinator's own samplers
  uint32_t next_sampler = 0;
  std::vector<uint32_t> placed;  // samplers in each env group: the coordinator's and live nodes'
  std::map<uint32_t, Member> members;
  bool started = false;  // the samplers may start: quorum or join timeout
  std::vector<std::pair<uint32_t, caf::typed_response_promise<uint32_t>>> waiting;
};

using self_ptr = coordinator_actor::stateful_pointer<CoordinatorState>;

size_t ready_nodes(const CoordinatorState& s) {
  size_t n = 0;
  for (const auto& [id, m] : s.members) n += m.ready && !m.lost;
  return n;
}

bool name_taken(const CoordinatorState& s, const std::string& name) {
  for (const auto& [id, m] : s.members)
    if (!m.lost && m.assignment.name == name) return true;
  return false;
}

// The samplers start: the waiting nodes' and the coordinator's own.
void start(self_ptr self, const std::string& why) {
  auto& s = self->state;
  if (s.started) return;
  s.started = true;
  fmt::print(stderr, "dvla: coordinator: starting with {} node(s) ({})\n", ready_nodes(s), why);
  caf::anon_send(s.setup.supervisor, quorum_atom::value);
  for (auto& [node, promise] : std::exchange(s.waiting, {})) {
    caf::anon_send(s.setup.supervisor, ready_atom::value, node);
    promise.deliver(node);
  }
}

caf::result<NodeAssignment, supervisor_actor> join(self_ptr self, const NodeInfo& info,
                                                   const node_actor& node) {
  auto& s = self->state;
  if (!node) return make_error(errc::bad_setup, "a node joined without a handle");
  if (name_taken(s, info.name))
    return make_error(errc::bad_setup, "a node named '" + info.name +
                                           "' is in the run already; give each node its own "
                                           "name (dvla-node --name)");
  NodeAssignment a;
  a.node = s.next_node++;
  a.name = info.name;
  a.config_text = s.config_text;
  a.samplers = node_samplers(s.setup.config.cluster, info);
  a.first_sampler = s.next_sampler;
  s.next_sampler += a.samplers;
  a.group = next_group(s.setup.groups, s.placed);
  s.placed[a.group] += a.samplers;
  const auto& group = s.setup.groups.at(a.group);
  a.group_name = group.name;
  a.graph_shape = s.setup.graph_shape;
  a.envs_per_sampler = group.envs_per_sampler;
  a.replicas = static_cast<uint32_t>(s.setup.config.cluster.node_replicas);
  a.data_port = s.setup.data_port;
  s.members[a.node] = {a, node};
  self->monitor(node);
  fmt::print(stderr,
             "dvla: coordinator: node '{}' (host {}, pid {}, {} cores usable of {}, {} MiB, {} "
             "GPU(s)) joined as node {}: samplers {}..{} of env group '{}' x {} envs, {} "
             "replica(s)\n",
             info.name, info.host, info.pid, info.cores, info.topology, info.memory_mib, info.gpus,
             a.node, a.first_sampler, a.first_sampler + a.samplers - 1, a.group_name,
             a.envs_per_sampler, a.replicas);
  caf::anon_send(s.setup.supervisor, join_atom::value, info, a);
  return {a, s.setup.supervisor};
}

const WeightsSource& source_of(const CoordinatorState& s, uint32_t node) {
  return node == RelayTree::root ? s.setup.learner_weights : s.relays.at(node);
}

// The node's place in the relay tree: where its weights come from.
caf::result<WeightsSource> relay(self_ptr self, uint32_t node, WeightsSource own) {
  auto& s = self->state;
  auto it = s.members.find(node);
  if (it == s.members.end() || it->second.lost)
    return make_error(errc::bad_setup, "node " + std::to_string(node) + " is not in the run");
  if (s.tree->contains(node))
    return make_error(errc::bad_setup, "node " + std::to_string(node) + " has a relay already");
  own.name = it->second.assignment.name;
  s.relays[node] = own;
  const auto& from = source_of(s, s.tree->add(node));
  fmt::print(stderr, "dvla: coordinator: node '{}' takes its weights from {} (depth {})\n",
             own.name, from.text(), s.tree->depth(node));
  caf::anon_send(s.setup.supervisor, relay_atom::value, node, from.name);
  return from;
}

// A lost node's children take the next version from its parent.
void route_around(self_ptr self, uint32_t lost) {
  auto& s = self->state;
  const auto name = s.members.at(lost).assignment.name;
  for (const auto& [child, parent] : s.tree->remove(lost)) {
    const auto& from = source_of(s, parent);
    const auto& m = s.members.at(child);
    fmt::print(stderr,
               "dvla: coordinator: node '{}' now takes its weights from {} (its relay '{}' was "
               "lost)\n",
               m.assignment.name, from.text(), name);
    self->send(m.node, relay_atom::value, from);
    caf::anon_send(s.setup.supervisor, relay_atom::value, child, from.name);
  }
  s.relays.erase(lost);
}

caf::result<uint32_t> ready(self_ptr self, uint32_t node, std::vector<EndpointRef> endpoints) {
  auto& s = self->state;
  auto it = s.members.find(node);
  if (it == s.members.end() || it->second.lost)
    return make_error(errc::bad_setup, "node " + std::to_string(node) + " is not in the run");
  auto& m = it->second;
  m.ready = true;
  for (auto& e : endpoints) e.node = m.assignment.name;
  self->send(s.setup.control, join_atom::value, std::move(endpoints));
  if (s.started) {
    caf::anon_send(s.setup.supervisor, ready_atom::value, node);
    return node;
  }
  auto promise = self->make_response_promise<uint32_t>();
  s.waiting.emplace_back(node, promise);
  if (ready_nodes(s) >= static_cast<size_t>(s.setup.config.cluster.nodes))
    start(self, "cluster.nodes are in");
  return promise;
}

// The join timeout: the run goes on with the nodes there are, or ends when there is nothing to
// collect with.
void on_join_timeout(self_ptr self) {
  auto& s = self->state;
  if (s.started) return;
  if (ready_nodes(s) == 0 && s.setup.config.cluster.local_samplers == 0)
    return self->quit(make_error(
        errc::bad_setup,
        fmt::format("coordinator: no node joined within cluster.join_timeout_s = {} s (listening "
                    "on {}); start nodes with dvla-node --coordinator {}",
                    s.setup.config.cluster.join_timeout_s, s.setup.address, s.setup.address)));
  start(self, fmt::format("{} of cluster.nodes = {} in after cluster.join_timeout_s",
                          ready_nodes(s), s.setup.config.cluster.nodes));
}

void on_node_down(self_ptr self, const caf::down_msg& down) {
  auto& s = self->state;
  for (auto& [id, m] : s.members) {
    if (m.lost || m.released || m.node.address() != down.source) continue;
    m.lost = true;
    s.placed[m.assignment.group] -= m.assignment.samplers;  // a node that joins next refills it
    route_around(self, id);
    self->send(s.setup.control, lost_atom::value, m.assignment.name);
    caf::anon_send(s.setup.supervisor, lost_atom::value, id,
                   down.reason ? describe(down.reason) : std::string("it stopped"));
    auto& w = s.waiting;
    w.erase(std::remove_if(w.begin(), w.end(), [id = id](const auto& p) { return p.first == id; }),
            w.end());
  }
}

// Tells every node to stop; answered with how many acknowledged (a lost one cannot).
caf::result<uint32_t> release(self_ptr self) {
  auto& s = self->state;
  std::vector<node_actor> nodes;
  for (auto& [id, m] : s.members) {
    if (m.lost) continue;
    m.released = true;
    nodes.push_back(m.node);
  }
  if (nodes.empty()) return uint32_t{0};
  auto promise = self->make_response_promise<uint32_t>();
  auto remaining = std::make_shared<size_t>(nodes.size());
  auto acknowledged = std::make_shared<uint32_t>(0);
  auto done = [promise, remaining, acknowledged](bool ok) mutable {
    *acknowledged += ok;
    if (--*remaining == 0) promise.deliver(*acknowledged);
  };
  for (const auto& n : nodes)
    self->request(n, timeout_of(s.setup.config.cluster.connection_timeout_s), shutdown_atom::value,
                  std::string("the run is over"))
        .then([done](bool) mutable { done(true); }, [done](caf::error&) mutable { done(false); });
  return promise;
}

coordinator_actor::behavior_type coordinator(self_ptr self, CoordinatorSetup setup) {
  name_failures(self, "coordinator");
  auto& s = self->state;
  s.setup = std::move(setup);
  s.tree.emplace(s.setup.config.distribution.fanout);
  s.config_text = dump_config(s.setup.config);
  s.next_sampler = static_cast<uint32_t>(s.setup.config.cluster.local_samplers);
  s.placed.assign(s.setup.groups.size(), 0);
  s.placed[0] = s.next_sampler;  // the coordinator's own samplers are the first group's
  self->set_down_handler([self](caf::down_msg& down) { on_node_down(self, down); });
  self->delayed_send(self,
                     std::chrono::duration_cast<caf::timespan>(
                         std::chrono::duration<double>(s.setup.config.cluster.join_timeout_s)),
                     quorum_atom::value);
  if (s.setup.config.cluster.nodes == 0) start(self, "cluster.nodes = 0");
  return {
      [self](join_atom, const NodeInfo& info, const node_actor& node) {
        return join(self, info, node);
      },
      [self](relay_atom, uint32_t node, WeightsSource& own) {
        return relay(self, node, std::move(own));
      },
      [self](ready_atom, uint32_t node, std::vector<EndpointRef>& endpoints) {
        return ready(self, node, std::move(endpoints));
      },
      [self](release_atom) { return release(self); },
      [self](quorum_atom) { on_join_timeout(self); },
  };
}

}  // namespace

coordinator_actor spawn_coordinator(caf::actor_system& system, CoordinatorSetup setup) {
  if (setup.groups.empty()) throw Failure("coordinator: the graph has no env group");
  return system.spawn(coordinator, std::move(setup));
}

}  // namespace dvla::actors
