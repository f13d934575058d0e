#pragma once
// Distributor (lane 4): one node's fan-out of weight updates. The same frame (shared bytes, no
// copy) goes to every local inference replica; the answer comes once all of them have staged it.
#include <caf/actor_system.hpp>

#include <string>
#include <vector>

#include "actors/interfaces.hpp"
#include "runtime/lane_track.hpp"

namespace dvla::actors {

struct DistributorSetup {
  std::string name = "distributor";
  std::vector<inference_actor> replicas;
  double timeout_s = 60;
  std::shared_ptr<LaneTrack> track;  // where its work is measured; may be null
};

distributor_actor spawn_distributor(caf::actor_system& system, DistributorSetup setup);

}  // namespace dvla::actors
