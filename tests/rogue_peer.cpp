// dvla-test-rogue: a peer that attacks a running coordinator, built from the installed API only
// (as anyone who reaches its ports could). dvla-test-rogue HOST CONTROL_PORT WEIGHTS_PORT CASE
// [CERT KEY CAFILE] tries one attack and prints one line: "CASE: refused: WHY" when the
// coordinator said no, "CASE: TAKEN" when it took the message (a test fails on it), or
// "CASE: unreachable: WHY" when it could not connect. Cases:
//   release   ask the coordinator's published port to release every node (end the run)
//   quorum    tell it its join timeout passed, anonymously
//   weights   hand the learner's published weights port a whole version 2^64-1
//   chunk     hand it a first chunk of a version that claims 2^40 bytes
//   join      join anonymously (no sender to bind a node to)
//   impostor  join as node 'a' with the certificate given (not a's)
//   flood     ask for a challenge with a 64 KiB nonce of no hex, then 300 join challenges, then
//             send 100 joins whose proofs are garbage (50 of them with nonces it was given, 50
//             with nonces of its own); prints "flood: refused: N of 100; a
//             malformed nonce: refused; LINK, U joins unsent" with N the joins refused or
//             unsent, LINK "disconnected (WHY)" when the coordinator ended its connection (past
//             cluster.max_refusals) and U the joins it no longer sent once it saw that
//   pose      pose as the coordinator: publish a coordinator's door on HOST:CONTROL_PORT (0: a
//             free port; prints "pose: listening on PORT") and answer each node's challenge with
//             a proof of the certificate given; prints "pose: refused: no node joined" after 30 s
//             without a join, "pose: TAKEN: a node joined" at once when one joins
//   plain, other-ca  connect at all (run without certificates, or with another CA's): the TLS
//             handshake must fail ("CASE: unreachable: WHY")
//   node      join as a node of its own and take its segment intake, then: a segment of a sampler
//             that is not its own, one of its own (8 envs x 32 steps of CartPole's shape) with a
//             report claiming 10^9 env steps, the same claim as a report of its own, and requests
//             for other nodes' relay places until the coordinator cuts it off; it also says it
//             is ready with an endpoint of its own and, once the coordinator's control plane
//             pinged that, orders the control plane to pause every sampler; then one more
//             segment. Prints "node: refused: cut off: WHY; SEGMENTS" when it was told to stop,
//             where SEGMENTS says how each segment was answered and whether the coordinator then
//             ended its connection ("disconnected (WHY)"); "node: TAKEN" otherwise
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <cstdint>
#include <cstdlib>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/cluster/peer_identity.hpp>

namespace {

using namespace dvla;
using namespace dvla::actors;

constexpr auto wait = std::chrono::seconds(10);

// Sends `xs` as a request expecting `Answer...` and says how it was answered.
template <class... Answer, class... Ts>
std::string ask(caf::scoped_actor& self, const caf::actor& to, Ts&&... xs) {
  std::string out;
  self->request(to, wait, std::forward<Ts>(xs)...)
      .receive([&](Answer...) { out = "TAKEN"; },
               [&](const caf::error& e) { out = "refused: " + describe(e); });
  return out;
}

msg::WeightsFrame huge_version() {
  static const std::vector<float> weights(4, 0.5f);
  msg::WeightUpdate update;
  update.version = std::numeric_limits<uint64_t>::max();
  update.manifest = {msg::ParameterEntry{"w", {4}, 0}};
  update.flat = {weights.data(), {4}};
  return msg::build(update);
}

msg::WeightChunkFrame huge_chunk() {
  static const std::vector<std::byte> bytes(1024);
  msg::WeightChunk chunk;
  chunk.version = 1u << 20;
  chunk.index = 0;
  chunk.count = 1u << 20;
  chunk.total_bytes = uint64_t{1} << 40;
  chunk.data = bytes.data();
  chunk.size = bytes.size();
  return msg::build(chunk);
}

// A CartPole-shaped segment of `sampler`: 8 envs x 32 steps, nothing ended.
struct RogueSegment {
  std::vector<float> state = std::vector<float>(32 * 8 * 4, 0.01f);
  std::vector<float> per_step = std::vector<float>(32 * 8, 0.0f);
  std::vector<uint8_t> flags = std::vector<uint8_t>(32 * 8, 0);
  std::vector<float> bootstrap = std::vector<float>(8, 0.0f);

  msg::SegmentFrame frame(uint32_t sampler) const {
    msg::TrajectorySegment m;
    m.sampler_id = sampler;
    m.observations.state = {state.data(), {32, 8, 4}};
    m.actions = {per_step.data(), {32, 8, 1}};
    m.rewards = {per_step.data(), {32, 8}};
    m.terminated = {flags.data(), {32, 8}};
    m.truncated = {flags.data(), {32, 8}};
    m.log_probs = {per_step.data(), {32, 8}};
    m.values = {per_step.data(), {32, 8}};
    m.bootstrap_values = {bootstrap.data(), {8}};
    m.success = {flags.data(), {32, 8}};
    m.policy_versions.assign(32, 0);
    return msg::build(m);
  }
};

msg::MetricsFrame inflated_report() {
  msg::SamplingReport inflated;
  inflated.env_steps = 1000000000;
  return msg::build(msg::Metrics{"sampler/0", 0, inflated});
}

// How the intake answered a segment.
std::string ship(caf::scoped_actor& self, const segment_intake_actor& intake,
                 const msg::SegmentFrame& segment) {
  std::string out;
  self->request(intake, wait, segment, inflated_report())
      .receive([&](uint64_t) { out = "taken"; },
               [&](const caf::error& e) { out = "refused (" + describe(e) + ")"; });
  return out;
}

// Says it is ready with an endpoint of its own: the coordinator's control plane pings it, and so
// shows itself; the endpoint then orders the control plane to pause every sampler of the run.
// How that order was answered.
std::string command_control_plane(PlaneSystems& planes, caf::scoped_actor& self,
                                  const coordinator_actor& coordinator, uint32_t node) {
  auto answered = std::make_shared<std::promise<std::string>>();
  auto outcome = answered->get_future();
  auto endpoint = planes.data().spawn(
      [answered](control_endpoint_actor::pointer me) -> control_endpoint_actor::behavior_type {
        auto asked = std::make_shared<bool>(false);
        return {
            [me, answered, asked](const msg::ControlFrame&) -> std::tuple<uint64_t, int64_t> {
              if (!std::exchange(*asked, true)) {
                const auto control = caf::actor_cast<caf::actor>(me->current_sender());
                me->request(control, wait,
                            msg::build(msg::ControlCommand{msg::Command::pause, 99, {}}))
                    .then([answered](uint64_t) { answered->set_value("taken"); },
                          [answered](caf::error& e) {
                            answered->set_value("refused (" + describe(e) + ")");
                          });
              }
              return {0, -1};
            },
            [](replace_atom, const caf::actor&) {},
        };
      });
  std::string failed;
  self->request(coordinator, wait, ready_atom::value, node,
                std::vector<EndpointRef>{{"rogue/sampler", endpoint, true, ""}})
      .receive([](uint32_t) {}, [&](const caf::error& e) { failed = describe(e); });
  if (!failed.empty()) return "not ready: " + failed;
  if (outcome.wait_for(std::chrono::seconds(15)) != std::future_status::ready)
    return "the control plane never pinged";
  return "pause all through the control plane: " + outcome.get();
}

// Watches the connection to a remote actor's node: CAF ends the actor's proxy when it goes down.
class LinkWatch {
 public:
  LinkWatch(caf::actor_system& system, const caf::actor& remote) {
    auto down = std::make_shared<std::promise<std::string>>();
    down_ = down->get_future();
    watcher_ = system.spawn([remote, down](caf::event_based_actor* self) -> caf::behavior {
      self->monitor(remote);
      self->set_down_handler([self, down](caf::down_msg& d) {
        down->set_value(describe(d.reason));
        self->quit();
      });
      return {[](ping_atom) {}};
    });
  }
  bool down() const { return down_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  // "disconnected (WHY)" once the connection went down, within `limit`; else "still connected".
  std::string within(std::chrono::seconds limit) {
    if (down_.wait_for(limit) != std::future_status::ready) return "still connected";
    return "disconnected (" + down_.get() + ")";
  }

 private:
  caf::actor watcher_;  // held: CAF ends an actor nobody holds
  std::future<std::string> down_;
};

// This process's certificate and key, when it was given them.
struct RogueIdentity {
  std::optional<IdentityKey> key;
};

// Joins `coordinator` as `name` the way a node does (a nonce, then a join signed over it with the
// certificate it was given, if any); the error is how the join was refused.
Expected<std::pair<NodeAssignment, node_reports_actor>> join_as(
    caf::scoped_actor& self, const coordinator_actor& coordinator, const RogueIdentity& identity,
    const std::string& name, const node_actor& agent) {
  std::string nonce;
  std::string failed;
  self->request(coordinator, wait, challenge_atom::value, fresh_nonce())
      .receive([&](std::string& n, IdentityProof&) { nonce = n; },
               [&](const caf::error& e) { failed = describe(e); });
  if (!failed.empty()) return Error("challenge refused: " + failed);
  IdentityProof proof;
  if (identity.key) proof = *identity.key->prove(join_statement(nonce, name));
  NodeInfo info{name, "rogue-host", static_cast<uint64_t>(getpid()), 1, 0, "", 0, 1};
  std::pair<NodeAssignment, node_reports_actor> joined;
  self->request(coordinator, wait, join_atom::value, info, agent, nonce, proof)
      .receive(
          [&](NodeAssignment& a, node_reports_actor& r) {
            joined = {a, r};
          },
          [&](const caf::error& e) { failed = describe(e); });
  if (!failed.empty()) return Error(failed);
  return joined;
}

// An agent that takes what a node's agent takes and does nothing.
node_actor idle_agent(PlaneSystems& planes) {
  return planes.data().spawn([]() -> node_actor::behavior_type {
    return {[](shutdown_atom, const std::string&) { return true; },
            [](relay_atom, const WeightsSource&) {}};
  });
}

// Many challenges, then many joins with garbage proofs: how many joins were refused.
std::string flood(PlaneSystems& planes, const coordinator_actor& coordinator) {
  caf::scoped_actor self{planes.data()};
  LinkWatch link(planes.data(), caf::actor_cast<caf::actor>(coordinator));
  std::string malformed = "; a malformed nonce: TAKEN";
  self->request(coordinator, wait, challenge_atom::value, std::string(1 << 16, 'z'))
      .receive([](std::string&, IdentityProof&) {},
               [&](const caf::error&) { malformed = "; a malformed nonce: refused"; });
  std::vector<std::string> issued;
  for (int i = 0; i < 300; ++i)
    self->request(coordinator, wait, challenge_atom::value, fresh_nonce())
        .receive([&](std::string& nonce, IdentityProof&) { issued.push_back(nonce); },
                 [](const caf::error&) {});
  const auto agent = idle_agent(planes);
  int refused = 0;
  // Half with nonces it was given, half with nonces of its own making.
  int unsent = 0;  // once disconnected, nothing reaches the coordinator: not taken either
  for (size_t i = 0; i < 100; ++i) {
    if (link.down()) {
      ++unsent;
      continue;
    }
    NodeInfo info{"flood-" + std::to_string(i), "rogue-host", 1, 1, 0, "", 0, 1};
    const auto nonce = i < 50 && i < issued.size() ? issued[i] : fresh_nonce();
    self->request(coordinator, wait, join_atom::value, info, agent, nonce,
                  IdentityProof{"-----BEGIN CERTIFICATE-----\ngarbage", std::string(64, 'x')})
        .receive([](NodeAssignment&, node_reports_actor&) {},
                 [&](const caf::error&) { ++refused; });
  }
  refused += unsent;
  return (refused == 100 ? "refused: 100 of 100" : "TAKEN: " + std::to_string(100 - refused)) +
         malformed + "; " + link.within(std::chrono::seconds(10)) + ", " + std::to_string(unsent) +
         " joins unsent";
}

// Joins as a node (a process of its own, with an agent the coordinator can release), then
// misbehaves until it is cut off.
std::string misbehave(PlaneSystems& planes, const std::string& host,
                      const coordinator_actor& coordinator, const RogueIdentity& identity) {
  auto stopped = std::make_shared<std::promise<std::string>>();
  auto told = stopped->get_future();
  auto agent = planes.data().spawn([stopped](node_actor::pointer) -> node_actor::behavior_type {
    return {
        [stopped](shutdown_atom, const std::string& why) {
          stopped->set_value(why);
          return true;
        },
        [](relay_atom, const WeightsSource&) {},
    };
  });
  caf::scoped_actor self{planes.data()};
  LinkWatch link(planes.data(), caf::actor_cast<caf::actor>(coordinator));
  auto joined = join_as(self, coordinator, identity, "rogue", agent);
  if (!joined) return "join refused: " + joined.error().message();
  const auto [assignment, reports] = *joined;
  std::string failed;
  auto gate = planes.connect<segment_gate_actor>(planes.data(), host, assignment.data_port);
  if (!gate) return "no gate: " + gate.error().message();
  segment_intake_actor intake;
  self->request(*gate, wait, join_atom::value, assignment.node, assignment.name)
      .receive([&](segment_intake_actor& i) { intake = i; },
               [&](const caf::error& e) { failed = "no intake: " + describe(e); });
  if (!failed.empty()) return failed;
  const RogueSegment segment;
  std::string segments =
      "another's sampler: " +
      ship(self, intake, segment.frame(assignment.first_sampler + assignment.samplers)) +
      "; its own with 10^9 claimed: " + ship(self, intake, segment.frame(assignment.first_sampler));
  segments += "; " + command_control_plane(planes, self, coordinator, assignment.node);
  self->send(reports, inflated_report());
  for (int i = 0;
       i < 100 && told.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready; ++i) {
    const uint32_t other = assignment.node == 1 ? 2 : 1;
    self->request(coordinator, wait, relay_atom::value, other, WeightsSource{"rogue", "", 1})
        .receive([](WeightsSource&) {}, [](const caf::error&) {});
  }
  if (told.wait_for(std::chrono::seconds(10)) != std::future_status::ready) return "TAKEN";
  // Disconnected right after it answered, well before the coordinator's heartbeats would drop it
  // for silence (cluster.connection_timeout_s = 5 s).
  segments += "; " + link.within(std::chrono::seconds(3));
  segments += "; after the cut-off: " + ship(self, intake, segment.frame(assignment.first_sampler));
  return "refused: cut off: " + told.get() + "; " + segments;
}

// Poses as the coordinator (see the cases above).
std::string pose(PlaneSystems& planes, const std::string& host, uint16_t port,
                 const RogueIdentity& identity) {
  auto joined = std::make_shared<std::promise<void>>();
  auto outcome = joined->get_future();
  auto door = planes.control().spawn(
      [&identity, joined](coordinator_actor::pointer) -> coordinator_actor::behavior_type {
        return {
            [&identity](challenge_atom,
                        const std::string& node_nonce) -> caf::result<std::string, IdentityProof> {
              IdentityProof proof;
              if (identity.key) proof = *identity.key->prove(coordinator_statement(node_nonce));
              return {fresh_nonce(), proof};
            },
            [joined](join_atom, const NodeInfo&, const node_actor&, const std::string&,
                     const IdentityProof&) -> caf::result<NodeAssignment, node_reports_actor> {
              joined->set_value();
              return make_error(errc::not_allowed, "a pose");
            },
            [](relay_atom, uint32_t, const WeightsSource&) -> caf::result<WeightsSource> {
              return make_error(errc::not_allowed, "a pose");
            },
            [](ready_atom, uint32_t, const std::vector<EndpointRef>&) -> caf::result<uint32_t> {
              return make_error(errc::not_allowed, "a pose");
            },
        };
      });
  auto published = planes.publish(door, host, port);
  if (!published) return "unreachable: " + published.error().message();
  std::cout << "pose: listening on " << *published << std::endl;
  if (outcome.wait_for(std::chrono::seconds(30)) == std::future_status::ready)
    return "TAKEN: a node joined";
  return "refused: no node joined";
}

std::string attack(PlaneSystems& planes, const std::string& host, uint16_t control,
                   uint16_t weights, const std::string& kind, const RogueIdentity& identity) {
  // Connected as the published interface says (CAF checks it), then used as any actor: a typed
  // handle limits what its holder sends only at compile time.
  if (kind == "pose") return pose(planes, host, control, identity);
  Expected<caf::actor> target = Error("unknown case");
  if (kind == "weights" || kind == "chunk") {
    auto door = planes.connect<relay_door_actor>(planes.data(), host, weights);
    if (door)
      target = caf::actor_cast<caf::actor>(*door);
    else
      target = door.error();
  } else {
    auto door = planes.connect<coordinator_actor>(planes.data(), host, control);
    if (door && kind == "node") return misbehave(planes, host, *door, identity);
    if (door && kind == "flood") return flood(planes, *door);
    if (door && kind == "impostor") {
      caf::scoped_actor self{planes.data()};
      auto joined = join_as(self, *door, identity, "a", idle_agent(planes));
      return joined ? "TAKEN" : "refused: " + joined.error().message();
    }
    if (door)
      target = caf::actor_cast<caf::actor>(*door);
    else
      target = door.error();
  }
  if (!target) return "unreachable: " + target.error().message();
  if (kind == "plain" || kind == "other-ca") return "TAKEN: connected";
  caf::scoped_actor self{planes.data()};
  if (kind == "release") return ask<uint32_t>(self, *target, release_atom::value);
  if (kind == "weights") return ask<uint64_t>(self, *target, huge_version());
  if (kind == "chunk") return ask<uint64_t, bool>(self, *target, huge_chunk());
  if (kind == "quorum" || kind == "join") {
    // Anonymous: CAF gives the receiver no sender. The answer, if any, cannot come back: the
    // coordinator's log and counters say what it did.
    if (kind == "quorum")
      caf::anon_send(*target, quorum_atom::value);
    else
      caf::anon_send(*target, join_atom::value, NodeInfo{"rogue", "rogue-host", 1, 1, 0, "", 0, 1},
                     node_actor{}, fresh_nonce(), IdentityProof{});
    std::this_thread::sleep_for(std::chrono::seconds(1));  // let it cross before we go
    return "refused: (anonymous: see the coordinator's log)";
  }
  return "unknown case";
}

}  // namespace

int main(int argc, char** argv) {
  alarm(120);  // never outlive a test that forgot us
  if (argc != 5 && argc != 8) {
    std::cerr << "usage: dvla-test-rogue HOST CONTROL_PORT WEIGHTS_PORT CASE [CERT KEY CAFILE]\n";
    return 2;
  }
  NetworkOptions network;
  RogueIdentity identity;
  if (argc == 8) {
    network = {0, 0, argv[5], argv[6], argv[7]};
    // Its certificate may have no dvla role (another CA's): it then proves nothing.
    if (auto key = IdentityKey::load(argv[5], argv[6])) identity.key = std::move(*key);
  }
  // Never destroyed: see the end.
  auto& planes = *new PlaneSystems(false, 2, network);
  const std::string kind = argv[4];
  std::cout << kind << ": "
            << attack(planes, argv[1], static_cast<uint16_t>(std::stoi(argv[2])),
                      static_cast<uint16_t>(std::stoi(argv[3])), kind, identity)
            << std::endl;
  // Its connections and actors are left to the process's end: CAF 0.17's teardown may wait on a
  // remote peer's proxies (as dvla-node's does).
  std::_Exit(0);
}
