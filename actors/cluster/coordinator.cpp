#include <dvla/actors/cluster/coordinator.hpp>

#include <fmt/core.h>
#include <caf/all.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <dvla/actors/cluster/node_reports.hpp>
#include <dvla/actors/cluster/peer_connections.hpp>
#include <dvla/actors/cluster/segment_intake.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/sender_check.hpp>
#include <dvla/core/hex.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/runtime/cluster/join_challenges.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/cluster/refusal_ledger.hpp>
#include <dvla/runtime/distribution/relay_tree.hpp>

namespace dvla::actors {
namespace {

struct Member {
  NodeAssignment assignment;
  node_actor node;
  caf::node_id process;  // the peer that joined as this node: only it may speak for it
  node_reports_actor reports;
  segment_intake_actor intake;  // once the gate asked for it
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
  // Each peer's refusals: said once per kind, counted, and past cluster.max_refusals its
  // connections ended (through `connections`).
  std::optional<RefusalLedger> refusals;
  peer_connections_actor connections;
  std::vector<caf::node_id> cut_off;  // processes of nodes cut off: they may not join again
  // The nonces a join must bring back and sign: issued to the asking process, kept by no one.
  // A node joins right after it asked (a few round trips); a minute leaves room for a slow one.
  JoinChallenges challenges{std::chrono::seconds(60)};
};

using self_ptr = coordinator_core_actor::stateful_pointer<CoordinatorState>;

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
  self->send(s.setup.supervisor, quorum_atom::value);
  for (auto& [node, promise] : std::exchange(s.waiting, {})) {
    self->send(s.setup.supervisor, ready_atom::value, node);
    promise.deliver(node);
  }
}

// The member numbered `node`, unless it is lost.
Member* member_of(CoordinatorState& s, uint32_t node) {
  auto it = s.members.find(node);
  return it == s.members.end() || it->second.lost ? nullptr : &it->second;
}

// The member that `process` joined as; with `lost_too`, also one that is lost (a node cut off
// whose messages are still on their way is still that node).
Member* member_by_process(CoordinatorState& s, const caf::node_id& process, bool lost_too = false) {
  for (auto& [id, m] : s.members)
    if ((lost_too || !m.lost) && same_process(m.process, process)) return &m;
  return nullptr;
}

void lose(self_ptr self, uint32_t id, const std::string& why);

// "node 'NAME'", or "a peer that is no node" for a process that never joined.
std::string who(const Member* m) {
  return m ? "node '" + m->assignment.name + "'" : std::string("a peer that is no node");
}

// Ends every connection of `process` (the ledger said so). `said`: the line that tells why, or
// "" for a peer disconnected again (it came back and was refused again: counted, not said).
void disconnect(self_ptr self, const caf::node_id& process, std::string said) {
  self->request(self->state.connections, caf::infinite, disconnect_atom::value, process)
      .then(
          [self, process, said](const std::vector<std::string>& ended) {
            self->state.refusals->disconnected(process_text(process), RefusalLedger::Clock::now());
            if (!said.empty())
              fmt::print(stderr, "dvla: coordinator: {}: its connections from {} ended\n", said,
                         endpoints_text(ended));
          },
          [self, process, said](const caf::error& e) {
            self->state.refusals->disconnected(process_text(process), RefusalLedger::Clock::now());
            fmt::print(stderr, "dvla: coordinator: {}: its connections could not be ended: {}\n",
                       said.empty() ? "a peer past cluster.max_refusals" : said, describe(e));
          });
}

// A node past cluster.max_refusals: lost, its intake and reports end (nothing of it is taken any
// more), it is told to stop, and its process may not join again; once it answered (or did not
// in time) its connections are ended.
void cut_off(self_ptr self, Member& m, uint64_t refusals) {
  auto& s = self->state;
  const auto why =
      fmt::format("cut off after {} refused messages (cluster.max_refusals)", refusals);
  fmt::print(stderr, "dvla: coordinator: node '{}' {}\n", m.assignment.name, why);
  s.cut_off.push_back(m.process);
  for (const auto& a :
       {caf::actor_cast<caf::actor>(m.intake), caf::actor_cast<caf::actor>(m.reports)})
    if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
  self->demonitor(m.node.address());
  const auto said = "node '" + m.assignment.name + "' disconnected";
  auto then_disconnect = [self, process = m.process, said] { disconnect(self, process, said); };
  self->request(m.node, timeout_of(s.setup.config.cluster.connection_timeout_s),
                shutdown_atom::value, "the coordinator " + why)
      .then([then_disconnect](bool) { then_disconnect(); },
            [then_disconnect](caf::error&) { then_disconnect(); });  // it may not listen
  lose(self, m.assignment.node, why);
}

// Says a refusal, with the address its peer is connected from (asked of the middlemen first).
void say_refusal(self_ptr self, const caf::node_id& process, const std::string& line_start,
                 const std::string& line_end) {
  if (!process) {
    fmt::print(stderr, "{} (CAF node anonymous){}\n", line_start, line_end);
    return;
  }
  auto say = [line_start, line_end, peer = caf::to_string(process)](const std::string& where) {
    fmt::print(stderr, "{} (CAF node {}, {}){}\n", line_start, peer, where, line_end);
  };
  self->request(self->state.connections, caf::infinite, locate_atom::value, process)
      .then(
          [say](const std::vector<std::string>& at) {
            say(at.empty() ? "not connected directly" : "from " + endpoints_text(at));
          },
          [say](const caf::error& e) { say("its address unknown: " + describe(e)); });
}

// A message of `process` refused here or by another actor of the coordinator's side: said once
// per peer and kind (with its address), counted against its node (the supervisor's status:
// `refused`); past cluster.max_refusals a node is cut off, and any peer disconnected.
void on_refused(self_ptr self, const caf::node_id& process, const std::string& kind,
                const std::string& why) {
  auto& s = self->state;
  auto* m = member_by_process(s, process, /*lost_too=*/true);
  const auto verdict =
      s.refusals->refused(process ? caf::to_string(process) : std::string(), process_text(process),
                          kind, RefusalLedger::Clock::now());
  if (verdict.say)
    say_refusal(self, process, "dvla: coordinator: refused " + kind + " from " + who(m),
                ": " + why + " (further refusals of this kind from it are counted, not logged" +
                    (verdict.last_said ? "; so are those of peers not yet named)" : ")"));
  self->send(s.setup.supervisor, refused_atom::value, m ? m->assignment.node : uint32_t{0});
  if (m && !m->lost && verdict.bound_reached) return cut_off(self, *m, verdict.refusals);
  if (verdict.disconnect)
    disconnect(self, process,
               verdict.bound_reached
                   ? fmt::format("{} (CAF node {}) disconnected after {} refused messages "
                                 "(cluster.max_refusals)",
                                 who(m), caf::to_string(process), verdict.refusals)
                   : std::string());
}

// Refuses a request of the sender: logged and counted as above, the error as the answer.
caf::error refuse_request(self_ptr self, const std::string& kind, const std::string& why) {
  on_refused(self, sender_node(self), kind, why);
  return make_error(errc::not_allowed, why);
}

bool is_nonce(const std::string& text) {
  const auto bytes = from_hex(text);
  return bytes && bytes->size() == nonce_bytes;
}

// A process about to join: a nonce for it to sign, and the coordinator's proof over its nonce.
caf::result<std::string, IdentityProof> challenge(self_ptr self, const std::string& node_nonce) {
  auto& s = self->state;
  const auto process = sender_node(self);
  if (!process)
    return refuse_request(self, "challenge", "a challenge request from an anonymous sender");
  if (!is_nonce(node_nonce))
    return refuse_request(
        self, "challenge",
        fmt::format("a challenge request whose nonce is not {} lowercase hex digits",
                    2 * nonce_bytes));
  auto nonce = s.challenges.issue(process_text(process), JoinChallenges::Clock::now());
  if (!s.setup.credentials) return {nonce, IdentityProof{}};
  auto proof = s.setup.credentials->key.prove(coordinator_statement(node_nonce));
  if (!proof) return make_error(errc::bad_setup, proof.error().message());
  return {nonce, *proof};
}

// Who a joining process is: with TLS, what its proof over its nonce shows (a node's certificate
// of the CA, named as it joins), else the name it gives; and that name is allowed.
Status check_identity(CoordinatorState& s, const caf::node_id& process, const NodeInfo& info,
                      const std::string& nonce, const IdentityProof& proof) {
  if (auto issued = s.challenges.check(nonce, process_text(process), JoinChallenges::Clock::now());
      !issued)
    return issued.error().within("a join without a challenge of its own");
  if (s.setup.credentials) {
    auto identity = s.setup.credentials->check.verify(proof, join_statement(nonce, info.name));
    if (!identity) return identity.error().within("a join whose proof of identity fails");
    if (identity->role != PeerRole::node)
      return Error("a join with the coordinator's certificate (" + describe(*identity) +
                   "), which is no node's");
    if (identity->name != info.name)
      return Error("a join as node '" + info.name + "' with the certificate of " +
                   describe(*identity));
  }
  const auto& allowed = s.setup.config.cluster.allowed_nodes;
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), info.name) == allowed.end())
    return Error("a join of node '" + info.name + "', which is not in cluster.allowed_nodes");
  return Status::ok();
}

caf::result<NodeAssignment, node_reports_actor> join(self_ptr self, const NodeInfo& info,
                                                     const node_actor& node,
                                                     const std::string& nonce,
                                                     const IdentityProof& proof) {
  auto& s = self->state;
  const auto process = sender_node(self);
  if (!process) return refuse_request(self, "join", "a join from an anonymous sender");
  if (!node) return make_error(errc::bad_setup, "a node joined without a handle");
  if (!same_process(node.node(), process))
    return refuse_request(self, "join", "a join that names an actor of another process");
  if (auto bounded = check_bounds(info); !bounded)
    return refuse_request(self, "join",
                          "a join whose node info is out of bounds: " + bounded.error().message());
  for (const auto& p : s.cut_off)
    if (same_process(p, process))
      return refuse_request(self, "join", "a join from the process of a node that was cut off");
  if (member_by_process(s, process))
    return refuse_request(self, "join",
                          "a second join from the process of node '" +
                              member_by_process(s, process)->assignment.name + "'");
  if (auto identity = check_identity(s, process, info, nonce, proof); !identity)
    return refuse_request(self, "join", identity.error().message());
  if (name_taken(s, info.name))
    return refuse_request(self, "join",
                          "a join as node '" + info.name +
                              "', which is in the run already: give each node its own name "
                              "(dvla-node --name; with TLS, its own certificate)");
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
  a.data_port = s.setup.data_port->load();
  auto reports =
      spawn_node_reports(self->system(), {a.node, a.name, process, s.setup.supervisor, self});
  Member m;
  m.assignment = a;
  m.node = node;
  m.process = process;
  m.reports = reports;
  s.members[a.node] = std::move(m);
  self->monitor(node);
  fmt::print(stderr,
             "dvla: coordinator: node '{}' ({}; host {}, pid {}, {} cores usable of {}, {} MiB, "
             "{} GPU(s)) joined as node {}: samplers {}..{} of env group '{}' x {} envs, {} "
             "replica(s)\n",
             info.name,
             s.setup.credentials ? "its certificate's name, checked" : "its name unauthenticated",
             info.host, info.pid, info.cores, info.topology, info.memory_mib, info.gpus, a.node,
             a.first_sampler, a.first_sampler + a.samplers - 1, a.group_name, a.envs_per_sampler,
             a.replicas);
  self->send(s.setup.supervisor, join_atom::value, info, a);
  return {a, reports};
}

// The member `node` if the sender is the process that joined as it; else the request is refused.
Expected<Member*> speaking_for(self_ptr self, uint32_t node, const std::string& kind) {
  auto* m = member_of(self->state, node);
  if (!m) {
    refuse_request(self, kind,
                   "a " + kind + " for node " + std::to_string(node) + ", which is not in the run");
    return Error("node " + std::to_string(node) + " is not in the run");
  }
  if (!from_process_of(self, m->process)) {
    refuse_request(self, kind,
                   "a " + kind + " for node '" + m->assignment.name + "' from another process");
    return Error("only node '" + m->assignment.name + "' speaks for itself");
  }
  return m;
}

// Where `node` of the relay tree hands out weights: the learner's port on the coordinator's host
// (as each node dialled it: it may listen on 0.0.0.0), or a relay node's.
WeightsSource source_of(const CoordinatorState& s, uint32_t node) {
  if (node == RelayTree::root) return WeightsSource{"learner", "", s.setup.weights_port->load()};
  return s.relays.at(node);
}

// The node's place in the relay tree: where its weights come from.
caf::result<WeightsSource> relay(self_ptr self, uint32_t node, WeightsSource own) {
  auto& s = self->state;
  auto member = speaking_for(self, node, "relay place");
  if (!member) return make_error(errc::not_allowed, member.error().message());
  if (s.tree->contains(node))
    return make_error(errc::bad_setup, "node " + std::to_string(node) + " has a relay already");
  own.name = (*member)->assignment.name;
  s.relays[node] = own;
  const auto from = source_of(s, s.tree->add(node));
  fmt::print(stderr, "dvla: coordinator: node '{}' takes its weights from {} (depth {})\n",
             own.name, from.text(), s.tree->depth(node));
  self->send(s.setup.supervisor, relay_atom::value, node, from.name);
  return from;
}

// A lost node's children take the next version from its parent.
void route_around(self_ptr self, uint32_t lost) {
  auto& s = self->state;
  const auto name = s.members.at(lost).assignment.name;
  for (const auto& [child, parent] : s.tree->remove(lost)) {
    const auto from = source_of(s, parent);
    const auto& m = s.members.at(child);
    fmt::print(stderr,
               "dvla: coordinator: node '{}' now takes its weights from {} (its relay '{}' was "
               "lost)\n",
               m.assignment.name, from.text(), name);
    self->send(m.node, relay_atom::value, from);
    self->send(s.setup.supervisor, relay_atom::value, child, from.name);
  }
  s.relays.erase(lost);
}

caf::result<uint32_t> ready(self_ptr self, uint32_t node, std::vector<EndpointRef> endpoints) {
  auto& s = self->state;
  auto member = speaking_for(self, node, "readiness");
  if (!member) return make_error(errc::not_allowed, member.error().message());
  auto& m = **member;
  m.ready = true;
  for (auto& e : endpoints) e.node = m.assignment.name;
  self->send(s.setup.control, join_atom::value, std::move(endpoints));
  if (s.started) {
    self->send(s.setup.supervisor, ready_atom::value, node);
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

// Node `id` leaves the run (`why`): its place, relays and endpoints go, its acknowledged env steps
// stay counted.
void lose(self_ptr self, uint32_t id, const std::string& why) {
  auto& s = self->state;
  auto& m = s.members.at(id);
  m.lost = true;
  s.placed[m.assignment.group] -= m.assignment.samplers;  // a node that joins next refills it
  route_around(self, id);
  self->send(s.setup.control, lost_atom::value, m.assignment.name);
  self->send(s.setup.supervisor, lost_atom::value, id, why);
  auto& w = s.waiting;
  w.erase(std::remove_if(w.begin(), w.end(), [id](const auto& p) { return p.first == id; }),
          w.end());
}

void on_node_down(self_ptr self, const caf::down_msg& down) {
  for (auto& [id, m] : self->state.members)
    if (!m.lost && !m.released && m.node.address() == down.source)
      lose(self, id, down.reason ? describe(down.reason) : std::string("it stopped"));
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

// The gate asks for the intake of the node `process` joined as: spawned once, bound to it.
caf::result<segment_intake_actor> intake_for(self_ptr self, const caf::node_id& process,
                                             uint32_t node, const std::string& name) {
  auto& s = self->state;
  auto* m = member_of(s, node);
  std::string why;
  if (!m || !same_process(m->process, process) || m->assignment.name != name)
    why = "an intake for node " + std::to_string(node) + " ('" + name +
          "'), which that peer did not join as";
  else if (m->intake)
    why = "a second intake for node '" + name + "'";
  if (!why.empty()) {
    on_refused(self, process, "segment intake", why);
    return make_error(errc::not_allowed, why);
  }
  m->intake = spawn_segment_intake(
      *s.setup.data_system,
      {m->assignment, process, s.setup.groups.at(m->assignment.group).max_segment_steps,
       s.setup.trainer, s.setup.supervisor, self});
  return m->intake;
}

// Internal requests: this process's actors only (the coordinator is reachable by its handle).
caf::error internal_only(self_ptr self, const std::string& what) {
  return refuse_request(self, "internal message", what + " is this process's to send");
}

coordinator_core_actor::behavior_type coordinator(self_ptr self, CoordinatorSetup setup) {
  name_failures(self, "coordinator");
  auto& s = self->state;
  s.setup = std::move(setup);
  s.refusals.emplace(static_cast<uint64_t>(s.setup.config.cluster.max_refusals));
  s.connections = spawn_peer_connections(self->system(), s.setup.middlemen);
  s.tree.emplace(s.setup.config.distribution.fanout);
  s.config_text = dump_config(s.setup.config);
  s.next_sampler = static_cast<uint32_t>(s.setup.config.cluster.local_samplers);
  s.placed.assign(s.setup.groups.size(), 0);
  s.placed[0] = s.next_sampler;  // the coordinator's own samplers are the first group's
  self->set_down_handler([self](caf::down_msg& down) { on_node_down(self, down); });
  refuse_other_messages(self, self, "coordinator");
  self->delayed_send(self,
                     std::chrono::duration_cast<caf::timespan>(
                         std::chrono::duration<double>(s.setup.config.cluster.join_timeout_s)),
                     quorum_atom::value);
  if (s.setup.config.cluster.nodes == 0) start(self, "cluster.nodes = 0");
  return {
      [self](challenge_atom, const std::string& node_nonce) { return challenge(self, node_nonce); },
      [self](join_atom, const NodeInfo& info, const node_actor& node, const std::string& nonce,
             const IdentityProof& proof) { return join(self, info, node, nonce, proof); },
      [self](relay_atom, uint32_t node, WeightsSource& own) {
        return relay(self, node, std::move(own));
      },
      [self](ready_atom, uint32_t node, std::vector<EndpointRef>& endpoints) {
        return ready(self, node, std::move(endpoints));
      },
      [self](release_atom) -> caf::result<uint32_t> {
        if (!from_this_process(self)) return internal_only(self, "release");
        return release(self);
      },
      [self](quorum_atom) {
        if (!from_this_process(self)) return (void)internal_only(self, "quorum");
        on_join_timeout(self);
      },
      [self](intake_atom, const caf::node_id& process, uint32_t node,
             const std::string& name) -> caf::result<segment_intake_actor> {
        if (!from_this_process(self)) return internal_only(self, "an intake request");
        return intake_for(self, process, node, name);
      },
      [self](refused_atom, const caf::node_id& process, const std::string& kind,
             const std::string& why) {
        if (!from_this_process(self)) return (void)internal_only(self, "a refusal");
        on_refused(self, process, kind, why);
      },
  };
}

// The published door: each request goes to the coordinator as the peer sent it (delegated: the
// coordinator sees who sent it and answers the peer itself).
coordinator_actor::behavior_type coordinator_door(coordinator_actor::pointer self,
                                                  coordinator_core_actor core) {
  refuse_other_messages(self, core, "coordinator");
  return {
      [self, core](challenge_atom a, std::string& node_nonce) {
        return self->delegate(core, a, std::move(node_nonce));
      },
      [self, core](join_atom a, NodeInfo& info, node_actor& node, std::string& nonce,
                   IdentityProof& proof) {
        return self->delegate(core, a, std::move(info), std::move(node), std::move(nonce),
                              std::move(proof));
      },
      [self, core](relay_atom a, uint32_t node, WeightsSource& own) {
        return self->delegate(core, a, node, std::move(own));
      },
      [self, core](ready_atom a, uint32_t node, std::vector<EndpointRef>& endpoints) {
        return self->delegate(core, a, node, std::move(endpoints));
      },
  };
}

}  // namespace

void end_with(caf::scheduled_actor* self, const coordinator_core_actor& core) {
  self->monitor(core);
  self->set_down_handler([self](caf::down_msg& down) { self->quit(down.reason); });
}

void refuse_other_messages(caf::scheduled_actor* self, coordinator_core_actor core,
                           std::string whose) {
  self->set_default_handler(
      [core, whose](caf::scheduled_actor* self, caf::message_view&) -> caf::result<caf::message> {
        caf::send_as(caf::actor_cast<caf::actor>(self), core, refused_atom::value,
                     sender_node(self), std::string("message outside the interface"),
                     "a message " + whose + " does not take");
        return make_error(errc::not_allowed, whose + " does not take this message");
      });
}

Coordinator spawn_coordinator(caf::actor_system& system, CoordinatorSetup setup) {
  if (setup.groups.empty()) throw Failure("coordinator: the graph has no env group");
  if (!setup.data_port || !setup.data_system || !setup.trainer)
    throw Failure("coordinator: no data plane (port, actor system, trainer)");
  if (!setup.weights_port) throw Failure("coordinator: no weights plane port");
  auto core = system.spawn(coordinator, std::move(setup));
  auto door = system.spawn(coordinator_door, core);
  // The door ends with the coordinator.
  core->attach_functor([door] { caf::anon_send_exit(door, caf::exit_reason::user_shutdown); });
  return {door, core};
}

}  // namespace dvla::actors
