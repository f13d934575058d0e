#include <dvla/actors/control/control_plane.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>
#include <dvla/actors/support/sender_check.hpp>
#include <dvla/messages/control_command.hpp>

namespace dvla::actors {
namespace {

struct ControlPlaneState {
  ControlPlaneSetup setup;
  uint64_t requests = 0;  // ids of the rounds this actor starts itself (pings)
  ControlSummary summary;
  double rtt_sum_us = 0;
};

using self_ptr = control_plane_actor::stateful_pointer<ControlPlaneState>;

// A node's endpoints leave (the node was lost, or one of them did not answer).
void drop_node(self_ptr self, const std::string& node) {
  auto& endpoints = self->state.setup.endpoints;
  endpoints.erase(std::remove_if(endpoints.begin(), endpoints.end(),
                                 [&](const EndpointRef& e) { return e.node == node; }),
                  endpoints.end());
}

// Microseconds from a round's start to the last acknowledgement of each node's endpoints.
using NodeRoundTrips = std::map<std::string, double>;

// Sends `frame` (a command of `kind`) to every endpoint it concerns and calls `done` with the
// round trip in microseconds (and each node's) once all have acknowledged. A local endpoint that
// does not ends this actor, naming it; a node's that does not takes its node's endpoints out of
// the rounds (the coordinator declares the node lost) and counts as answered.
void round(self_ptr self, msg::Command kind, const msg::ControlFrame& frame,
           std::function<void(double, const NodeRoundTrips&)> done) {
  auto& s = self->state;
  const bool orders = kind == msg::Command::pause || kind == msg::Command::resume;
  std::vector<EndpointRef> targets;
  for (const auto& e : s.setup.endpoints)
    if (!orders || e.takes_orders) targets.push_back(e);
  if (targets.empty()) return done(0, {});
  auto remaining = std::make_shared<size_t>(targets.size());
  auto nodes = std::make_shared<NodeRoundTrips>();
  const auto started = std::chrono::steady_clock::now();
  auto answered = [remaining, nodes, started, done](const std::string& node) {
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started)
            .count();
    if (!node.empty()) (*nodes)[node] = us;
    if (--*remaining == 0) done(us, *nodes);
  };
  for (const auto& e : targets)
    self->request(e.handle, timeout_of(s.setup.timeout_s), frame)
        .then([answered, node = e.node](uint64_t, int64_t) { answered(node); },
              [self, name = e.name, node = e.node, kind, answered](caf::error& err) {
                const auto why = name + " did not acknowledge '" + std::string(to_text(kind)) +
                                 "': " + describe(err);
                if (node.empty()) return self->quit(make_error(errc::no_answer, why));
                drop_node(self, node);
                answered({});
              });
}

void schedule_ping(self_ptr self) {
  const double interval_s = self->state.setup.ping_interval_s;
  if (interval_s > 0)
    self->delayed_send(self, std::chrono::microseconds(static_cast<int64_t>(interval_s * 1e6)),
                       ping_atom::value);
}

// A health round: every endpoint acknowledges a ping; the round trip goes to the supervisor.
void ping_round(self_ptr self) {
  const auto frame =
      msg::build(msg::ControlCommand{msg::Command::ping, ++self->state.requests, {}});
  round(self, msg::Command::ping, frame, [self](double us, const NodeRoundTrips& nodes) {
    auto& s = self->state;
    auto& c = s.summary;
    ++c.rounds;
    c.last_us = us;
    c.max_us = std::max(c.max_us, us);
    s.rtt_sum_us += us;
    c.mean_us = s.rtt_sum_us / static_cast<double>(c.rounds);
    if (s.setup.supervisor) {
      caf::anon_send(s.setup.supervisor, c);
      for (const auto& [node, node_us] : nodes)
        caf::anon_send(s.setup.supervisor, ping_atom::value, node, node_us);
    }
    schedule_ping(self);
  });
}

caf::result<uint64_t> on_command(self_ptr self, const msg::ControlFrame& frame) {
  auto command = msg::read(frame);
  if (!command)
    return refuse(self->state.setup.supervisor, "control plane", errc::malformed_message,
                  command.error().message());
  const auto kind = command->kind;
  if (kind != msg::Command::ping && kind != msg::Command::pause && kind != msg::Command::resume)
    return make_error(errc::bad_setup, "the control plane does not take '" +
                                           std::string(to_text(kind)) + "' orders");
  auto promise = self->make_response_promise<uint64_t>();
  round(self, kind, frame,
        [promise, id = command->request_id](double, const NodeRoundTrips&) mutable {
          promise.deliver(id);
        });
  return promise;
}

control_plane_actor::behavior_type control_plane(self_ptr self, ControlPlaneSetup setup) {
  name_failures(self, "control plane");
  self->state.setup = std::move(setup);
  schedule_ping(self);
  // In a multi-node run a peer can reach it (it messages the nodes' endpoints): every order comes
  // from this process (the supervisor, the coordinator, its own timer).
  const auto ours = [self](const char* what) {
    if (from_this_process(self)) return true;
    report_rejected(self->state.setup.supervisor, "control plane",
                    std::string(what) + " from " + sender_text(self) +
                        " refused: only this process commands the control plane");
    return false;
  };
  return {
      [self, ours](const msg::ControlFrame& frame) -> caf::result<uint64_t> {
        if (!ours("a control command"))
          return make_error(errc::not_allowed, "only this process commands the control plane");
        return on_command(self, frame);
      },
      [self, ours](ping_atom) {
        if (ours("a ping round")) ping_round(self);
      },
      [self, ours](join_atom, const std::vector<EndpointRef>& endpoints) {
        if (!ours("endpoints")) return;
        auto& mine = self->state.setup.endpoints;
        mine.insert(mine.end(), endpoints.begin(), endpoints.end());
      },
      [self, ours](lost_atom, const std::string& node) {
        if (ours("a node's loss")) drop_node(self, node);
      },
  };
}

}  // namespace

control_plane_actor spawn_control_plane(caf::actor_system& system, ControlPlaneSetup setup) {
  // Scheduled, not detached: it only sends and counts, on threads no lane computes on.
  return system.spawn(control_plane, std::move(setup));
}

}  // namespace dvla::actors
