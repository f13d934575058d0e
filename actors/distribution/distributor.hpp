#pragma once
// Distributor (lane 4): one node's fan-out of weight updates. Each version is decoded once and
// staged, on the distributor's own thread, into every local inference replica (host replicas
// share the received frame read-only; a GPU replica copies it into its staging buffer), and
// passed on to every distributor attached downstream — another node's, so weights cross each
// node boundary once — in chunks, a few in flight per downstream; a node's distributor
// puts them together and checks the whole (size, checksum) before its replicas may stage it.
// Inference swaps it in at its next batch boundary, so a transfer neither waits for a forward pass
// nor blocks one.
#include <caf/actor_system.hpp>

#include <memory>
#include <string>
#include <vector>

#include <dvla/actors/interfaces.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>
#include <dvla/runtime/platform/placement_report.hpp>

namespace dvla {
class DoubleBufferedReplica;
}

namespace dvla::actors {

struct DistributorSetup {
  std::string name = "distributor";
  std::vector<std::shared_ptr<DoubleBufferedReplica>> replicas;  // this node's
  std::shared_ptr<LaneTrack> track;  // where its work is measured; may be null
  ThreadPlacement placement;  // graph.placement = auto: the cores its thread is pinned to
  double timeout_s = 60;             // for a downstream distributor to take a chunk
  size_t chunk_bytes = size_t{4} << 20;  // weights cross to the downstream in chunks of this size
  int chunks_in_flight = 2;              // per downstream: chunks sent and not yet acknowledged
  double uplink_bytes_per_s = 0;         // all downstreams together; 0: no cap
  // The learner's distributor rounds each version to this once; every replica stages that.
  msg::WeightPrecision wire_precision = msg::WeightPrecision::float32;
  caf::actor supervisor;             // receives rejection counts; may be null
  // The size of one version as it crosses (the policy's frame in the wire's precision): a
  // transfer whose first chunk claims another size is refused before anything is allocated. 0:
  // not checked (a distributor of its own, in tests).
  uint64_t version_bytes = 0;
};

distributor_actor spawn_distributor(caf::actor_system& system, DistributorSetup setup);

}  // namespace dvla::actors
