#pragma once
// Uplink (node, data plane): one sampler's way to the coordinator's learner. The sampler ships its
// segments and sends its reports here as if to the trainer and the supervisor; the uplink holds
// the env steps and episodes reported, ships them with the next segment to the node's segment
// intake (actors/cluster/segment_intake.hpp), and passes the intake's acknowledgement back as the
// sampler's credit. Other reports (refusals) go straight to the run's supervisor.
#include <caf/actor_system.hpp>

#include <atomic>
#include <memory>
#include <string>

#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

struct UplinkSetup {
  std::string name;  // the sampler's
  segment_intake_actor intake;
  caf::actor supervisor;  // where the node reports (node_reports_actor, on the coordinator)
  // Adds the env steps (valid steps) of each segment the learner acknowledged: the node's own
  // count, which the coordinator's must match. May be null.
  std::shared_ptr<std::atomic<uint64_t>> acknowledged;
};

uplink_actor spawn_uplink(caf::actor_system& system, UplinkSetup setup);

}  // namespace dvla::actors
