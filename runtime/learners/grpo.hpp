#pragma once
// GRPO (group relative policy optimisation), critic-free: the envs of a group start from one
// initial state and each runs one episode (an episodic segment: steps after an env's episode
// ended are marked invalid). An episode's advantage is its score's deviation from its group's
// mean score, in units of the group's standard deviation, and every step of the episode gets
// it. Groups whose scores are all equal carry no signal and are left out of training.
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/runtime/config/grpo_config.hpp>
#include <dvla/runtime/learners/training_batch.hpp>

namespace dvla {

struct GroupAdvantages {
  std::vector<float> advantage;      // [envs]
  std::vector<uint8_t> informative;  // [envs]: 1 where the env's group had differing scores
};

// (score - group mean) / (group standard deviation + 1e-6), with the population deviation.
GroupAdvantages group_advantages(const std::vector<float>& scores,
                                 const std::vector<int32_t>& groups);

// Each env's episode score in an episodic segment: success (1 if it succeeded, else 0) or its
// return (its summed reward over valid steps), as grpo.reward says.
std::vector<float> episode_scores(const msg::TrajectorySegment& segment, EpisodeScore reward);

// Why `segment` cannot be used by GRPO (not episodic, or an episode that did not end); empty if
// it can.
std::string grpo_mismatch(const msg::TrajectorySegment& segment);

// Valid steps of envs in informative groups: the samples `segment` adds to a GRPO batch.
int64_t informative_samples(const msg::TrajectorySegment& segment, EpisodeScore reward);

// The informative valid steps of `segments` with their group advantages.
TrainingBatch make_grpo_batch(const std::vector<msg::TrajectorySegment>& segments,
                              EpisodeScore reward, uint64_t learner_version);

}  // namespace dvla
