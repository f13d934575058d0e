#pragma once
// LearnerAlgorithm: what turns admitted trajectory segments into one learner update — how the
// samplers must collect for it, which segments it can learn from, and the batch (advantages and
// returns) of each update. The update itself is shared: PpoLearner's clipped surrogate with the
// decoupled correction for policy lag, driven by the settings the algorithm chooses.
//
// PPO (GAE advantages from the behaviour critic) and GRPO (group-relative episode scores, no
// critic) are two implementations, registered by name in a LearnerRegistry; a user registers a
// third the same way (examples/custom_learner.cpp) and selects it with --algo NAME.
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/runtime/config/ppo_config.hpp>
#include <dvla/runtime/learners/training_batch.hpp>

namespace dvla {

class Policy;

// How the samplers of a run collect.
struct Collection {
  // 0: continuous segments of graph.segment_length steps, episodes running across them.
  // > 0: episodic: every group of this many envs starts from one initial state, each env runs one
  // episode, and the segment ships once all have ended (steps after an end are marked invalid).
  int group_size = 0;

  bool episodic() const { return group_size > 0; }
};

class LearnerAlgorithm {
 public:
  virtual ~LearnerAlgorithm() = default;

  // How samplers must collect for this algorithm (continuous segments unless overridden).
  virtual Collection collection() const { return {}; }
  // The objective's settings the update runs with, given the run's (GRPO: no value loss).
  virtual PpoConfig objective(const PpoConfig& config) const { return config; }
  // Why this algorithm cannot learn from `segment` (empty: it can). Shapes were checked before.
  virtual std::string mismatch(const msg::TrajectorySegment& segment) const { return {}; }
  // The samples `segment` adds to a batch; 0: it carries nothing to learn from and is not kept.
  virtual int64_t samples(const msg::TrajectorySegment& segment) const {
    return segment.valid_steps();
  }
  // The batch of one update from the admitted segments: inputs, actions, behaviour
  // log-probabilities, advantages, returns and the samples' policy lag behind `learner_version`.
  // `policy` is the learner's current policy (e.g. to value truncated steps).
  virtual TrainingBatch make_batch(const std::vector<msg::TrajectorySegment>& segments,
                                   Policy& policy, uint64_t learner_version) = 0;
  // What the algorithm carries from batch to batch (PPO: its reward scale) as JSON text, saved in
  // checkpoints (state.json); empty: nothing.
  virtual std::string checkpoint_state() const { return {}; }
  // Continues from a checkpoint_state() text; the error says what is wrong with it.
  virtual Status restore_state(const std::string& json) {
    (void)json;
    return Status::ok();
  }
};

}  // namespace dvla
