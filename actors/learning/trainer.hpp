#pragma once
// Trainer (lane 3): the learner. Admits trajectory segments within the staleness bound, trains
// once a batch is gathered, and publishes each new policy version through the distributor.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <dvla/actors/interfaces.hpp>
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>
#include <dvla/runtime/platform/placement_report.hpp>

namespace dvla {
class Policy;
class LearnerAlgorithm;
namespace gpu {
class PoolLease;
}
}  // namespace dvla

namespace dvla::actors {

// Where a run's learner had got to, as its announcements said (the supervisor's status).
struct TrainerProgress {
  uint64_t version = 0;
  uint64_t samples_trained = 0;
  uint64_t samples_dropped = 0;
};

struct TrainerSetup {
  std::string name = "trainer";
  envs::EnvSpec spec;
  ThreadPlacement placement;  // graph.placement = auto: the cores its thread is pinned to
  std::function<std::shared_ptr<Policy>()> make_policy;
  // Turns admitted segments into each update's batch (runtime/learners/learner_algorithm.hpp).
  std::shared_ptr<LearnerAlgorithm> algorithm;
  Config config;  // ppo.* drive the learner; the whole of it goes into checkpoints
  uint64_t seed = 1;
  // Where checkpoints go (a run's logdir); empty: the trainer refuses to save them.
  std::string checkpoint_root;
  // A checkpoint to continue from: its weights, optimizer state, version, counters and RNG.
  std::shared_ptr<const Checkpoint> resume;
  // A restarted trainer's (fault.restart_trainer): its predecessor's progress. Its first version
  // comes after the last one announced, so that no version number stands for two sets of weights
  // (the replicas may hold versions newer than `resume`), and its counters go on from there.
  std::optional<TrainerProgress> continue_after;
  // mode = sync: the samplers of the lock-step; each segment's acknowledgement waits for the
  // round (runtime/lanes/lock_step.hpp). 0: async, acknowledgements are credits.
  size_t lock_step_samplers = 0;
  double timeout_s = 60;
  std::shared_ptr<LaneTrack> track;  // where its work is measured; may be null
  // Its lease on the model pool: the flat weight buffer comes from it. Null: the heap.
  std::shared_ptr<gpu::PoolLease> model_lease;
  distributor_actor distributor;  // receives every new version; may be null
  caf::actor supervisor;          // receives version announcements and rejections; may be null
};

// Spawns a detached trainer: gradient steps run on a thread of their own.
trainer_actor spawn_trainer(caf::actor_system& system, TrainerSetup setup);

}  // namespace dvla::actors
