#pragma once
// SegmentBuilder: a sampler's scratch space for one trajectory segment. It records each step as it
// happens (what the policy saw and answered, what the env did) and builds the segment's frame once
// the bootstrap values of the following observation are known.
#include <cstdint>
#include <memory_resource>
#include <vector>

#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/action_batch.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/runtime/trajectories/observation_buffer.hpp>

namespace dvla {

class SegmentBuilder {
 public:
  // Its buffers live in `memory` (a sampler's lease on the sim pool; by default the heap).
  SegmentBuilder(const envs::EnvSpec& spec, int64_t envs, int64_t max_steps,
                 std::pmr::memory_resource* memory = std::pmr::get_default_resource());

  // Records the first half of a step: what the envs of `before` observe (as sent to the policy)
  // and the policy's `answer`. Call before stepping the env, which overwrites its observations.
  void begin_step(const envs::BatchOutput& before, const msg::ActionBatch& answer);
  // Records the env's `outcome` of applying the answer's actions, completing the step.
  void end_step(const envs::BatchOutput& outcome);

  // Episodic collection (GRPO): from now on each env runs one episode per segment, steps after
  // its episode ended are recorded as invalid, and `groups` ([envs]) name the envs that started
  // from one initial state. Call at the start of each segment's episodes.
  void start_episodes(std::vector<int32_t> groups);
  // Episodic: every env's episode has ended.
  bool episodes_ended() const;
  // Whether env `env`'s part of the last step was within its episode (always, unless episodic).
  bool last_step_valid(int64_t env) const;

  int64_t steps() const { return steps_; }
  bool empty() const { return steps_ == 0; }
  bool full() const { return steps_ == max_steps_; }

  // Records what every env of `after` observes after the last step, for the segment to carry
  // (the learner's critic values it in place of the bootstrap values). Call before finish().
  void observe_after(const envs::BatchOutput& after);

  // The recorded steps as a segment frame; `bootstrap_values` ([envs]) estimate the observation
  // after the last step; `last` marks the sampler's final segment; `first_env` is the sampler's
  // index of this builder's env 0. Starts a new, empty segment.
  msg::SegmentFrame finish(uint32_t sampler_id, uint64_t sequence, const float* bootstrap_values,
                           bool last = false, uint32_t first_env = 0);

 private:
  int64_t envs_, max_steps_, action_dim_;
  int64_t steps_ = 0;
  bool step_open_ = false;
  ObservationBuffer observations_, finals_, after_;
  std::pmr::vector<float> actions_, rewards_, log_probs_, values_;
  std::pmr::vector<uint8_t> terminated_, truncated_, success_;
  std::pmr::vector<uint64_t> versions_;
  std::pmr::vector<uint32_t> final_indices_;
  // Episodic collection only.
  bool episodic_ = false;
  std::vector<int32_t> groups_;
  std::pmr::vector<uint8_t> valid_, ended_;
};

}  // namespace dvla
