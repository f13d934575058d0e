#pragma once
// Collection: how a sampler collects — the strategy its actor shell (actors/sampling/sampler.cpp)
// delegates to, chosen once from the run mode and the learner's collection:
//   ContinuousCollection  async: segments of graph.segment_length steps, episodes running across
//                         them, each closed by the answer after its last step (whose values
//                         bootstrap it); double-buffered.
//   LockStepCollection    sync: the same segments, but after each one the sampler waits for the
//                         trainer's acknowledgement (sent once the new weights are distributed)
//                         and acts with fresh actions: collect, train, distribute, in rounds.
//   EpisodicCollection    GRPO: rounds of whole episodes, groups of envs from one initial state;
//                         a segment ships when all of the round's episodes have ended.
// The shell owns what is common: requests to inference, credits, passing segments through the
// stages to the trainer, reports, pause and the end of the budget. A strategy decides what an
// answer does to a buffer, through the shell's small interface below. No CAF here.
#include <cstdint>
#include <memory>

#include <dvla/actors/sampling/env_buffer.hpp>
#include <dvla/messages/action_batch.hpp>

namespace dvla::actors {

// What a collection strategy may ask of its sampler.
class SamplerShell {
 public:
  virtual ~SamplerShell() = default;
  // Ships b's segment (bootstrapped by `bootstrap_values`, one per env) towards the trainer;
  // `last`: the sampler sends no more from this buffer.
  virtual void ship(EnvBuffer& b, const float* bootstrap_values, bool last) = 0;
  // Steps b's envs with `answer`, counting the env steps and the episodes that end.
  virtual void step(EnvBuffer& b, const msg::ActionBatch& answer) = 0;
  // Starts b's envs from `seeds` (BatchedEnv::reset), measured as sampling work as steps are.
  virtual void reset(EnvBuffer& b, const std::vector<uint64_t>& seeds) = 0;
  virtual bool budget_spent() const = 0;
  // Sets a credit aside for b's next segment if one is free (b holds none): whether b holds one.
  virtual bool reserve_credit(EnvBuffer& b) = 0;
  // Draining: the budget is spent, no buffer steps again.
  virtual bool draining() const = 0;
  virtual void drain() = 0;
  // The seed the sampler's env streams derive from, and its id (unique in the run).
  virtual uint64_t seed() const = 0;
  virtual uint32_t id() const = 0;
};

class Collection {
 public:
  virtual ~Collection() = default;
  // The env buffers a sampler configured for `requested` uses.
  virtual int buffers(int requested) const { return requested; }
  // The steps a segment of `env` holds, given the configured length; throws std::invalid_argument
  // naming the problem when the env cannot be collected this way.
  virtual int64_t segment_length(const envs::BatchedEnv& env, int64_t configured) const {
    return configured;
  }
  // The first episodes of a buffer.
  virtual void start(EnvBuffer& b, SamplerShell& shell) = 0;
  // Whether b asks inference for actions (again): a draining buffer may still need an answer to
  // close its segment.
  virtual bool wants_actions(const EnvBuffer& b, bool draining) const = 0;
  // Whether b's next request needs a credit set aside, held until b's segment ships: where the
  // answer starts a segment (or round) or closes one. A buffer waits for a free credit there.
  virtual bool needs_credit(const EnvBuffer& b, bool draining) const = 0;
  // Whether a request may go out while `unacknowledged` segments are with the trainer.
  virtual bool may_request(int unacknowledged) const { return true; }
  // Uses an answer for b's current observations; the shell then asks for b's next actions.
  virtual void on_answer(EnvBuffer& b, const msg::ActionBatch& answer, SamplerShell& shell) = 0;
};

// The strategy for a sampler: episodic when `group_size` > 0 (in lock-step rounds when
// `lock_step`), otherwise lock-step or continuous.
std::unique_ptr<Collection> make_collection(int group_size, bool lock_step);

}  // namespace dvla::actors
