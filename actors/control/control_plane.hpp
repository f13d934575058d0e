#pragma once
// ControlPlane: the run's control rounds, on CAF's scheduler apart from the lane threads. It owns
// the control endpoints of the lane actors (actors/control/control_endpoint.hpp) and
//   - sends a command (ping, pause, resume) to every endpoint it concerns (pause and resume: the
//     samplers) and answers with the request id once all acknowledged;
//   - every control.ping_interval_s runs a ping round and sends the round trips so far
//     (ControlSummary) to the supervisor, and each node's share of the round (ping, node, us:
//     until its last endpoint acknowledged).
// A local endpoint that does not acknowledge within message_timeout_s ends the control plane with
// an error naming it; the supervisor, which watches it, ends the run with that error. A node's
// endpoints (a multi-node run) join when the node is ready and leave when it is lost, or when one
// of them does not acknowledge: a lost node does not end the run.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <string>
#include <vector>

#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

struct ControlPlaneSetup {
  std::vector<EndpointRef> endpoints;
  double ping_interval_s = 1;  // 0: no ping rounds
  double timeout_s = 60;       // for each endpoint to acknowledge
  caf::actor supervisor;       // receives the round trips
};

control_plane_actor spawn_control_plane(caf::actor_system& system, ControlPlaneSetup setup);

}  // namespace dvla::actors
