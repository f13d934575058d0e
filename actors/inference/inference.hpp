#pragma once
// Inference (lane 2): one policy replica. Batches the observation requests that are waiting in its
// mailbox into one forward pass, answers each with its rows of actions stamped with the policy
// version, and swaps in the weights the distributor staged at batch boundaries. Weights never
// pass through its mailbox (the control plane does not queue behind observations).
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <memory>
#include <string>

#include <dvla/actors/interfaces.hpp>
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>
#include <dvla/runtime/platform/placement_report.hpp>

namespace dvla {
class DoubleBufferedReplica;
}

namespace dvla::actors {

struct InferenceSetup {
  std::string name = "inference/0";
  envs::EnvSpec spec;
  ThreadPlacement placement;  // graph.placement = auto: the cores its thread is pinned to
  // The replica's active and staging weights, shared with the node's distributor.
  std::shared_ptr<DoubleBufferedReplica> weights;
  uint64_t seed = 1;                 // action sampling
  // Each request acted on in a forward pass of its own, its actions drawn from its sampler's own
  // stream (seeded from `seed` and the sampler id), not joined with whatever else has arrived and
  // drawn from one stream in arrival order: with lock-step samplers (sync mode) a run is then
  // reproducible. Async runs are not (their schedule decides versions), so they skip it.
  bool stream_per_sampler = false;
  int torch_threads = 1;             // LibTorch intra-op threads of its forward passes
  std::shared_ptr<LaneTrack> track;  // where its work is measured; may be null
  caf::actor supervisor;             // receives rejection counts; may be null
};

// Spawns a detached inference actor: its forward passes run on a thread of their own.
inference_actor spawn_inference(caf::actor_system& system, InferenceSetup setup);

}  // namespace dvla::actors
