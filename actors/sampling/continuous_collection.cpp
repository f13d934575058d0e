#include <dvla/actors/sampling/continuous_collection.hpp>

namespace dvla::actors {

// The seed stream of a buffer: buffer 0 keeps the sampler's own (as without double buffering).
void ContinuousCollection::start(EnvBuffer& b, SamplerShell& shell) {
  const uint64_t stream = (uint64_t{b.index} << 32) | shell.id();
  shell.reset(b, envs::derive_seeds(shell.seed(), stream, b.env->size()));
}

// Draining, a buffer still needs the answer that bootstraps its last segment.
bool ContinuousCollection::wants_actions(const EnvBuffer& b, bool draining) const {
  return !draining || !b.segment->empty();
}

// A segment starts with a credit: a buffer never collects what the trainer has no room for yet,
// so a trainer that holds its acknowledgements (an update running) stops the samplers at segment
// starts, and they go on with the new weights, not with steps taken under the old ones.
bool ContinuousCollection::needs_credit(const EnvBuffer& b, bool draining) const {
  return b.segment->empty() || b.segment->full() || draining;
}

// Lock-step: the answer after a full (or, draining, the final) segment's last step closes it.
bool LockStepCollection::needs_credit(const EnvBuffer& b, bool draining) const {
  return b.segment->full() || draining;
}

void ContinuousCollection::step(EnvBuffer& b, const msg::ActionBatch& answer, SamplerShell& shell) {
  shell.step(b, answer);
  if (shell.budget_spent()) shell.drain();
}

void ContinuousCollection::on_answer(EnvBuffer& b, const msg::ActionBatch& answer,
                                     SamplerShell& shell) {
  const bool closes = !b.segment->empty() && (b.segment->full() || shell.draining());
  // Asked for before the budget ran out, the answer finds the segment final but no credit set
  // aside: the shell gets one, then asks again.
  if (closes && !b.holds_credit) return;
  if (closes) shell.ship(b, answer.values.data, shell.draining());
  if (shell.draining()) return;
  // The answer's actions start the next segment, which needs a credit; without one the buffer
  // asks again once a credit is back, for actions of the weights of then.
  if (closes && !shell.reserve_credit(b)) return;
  step(b, answer, shell);
}

void LockStepCollection::on_answer(EnvBuffer& b, const msg::ActionBatch& answer,
                                   SamplerShell& shell) {
  const bool closes = !b.segment->empty() && (b.segment->full() || shell.draining());
  if (closes && !b.holds_credit) return;
  if (closes) {
    // These actions are of the version the segment was collected with: the next request waits
    // for the trainer's acknowledgement (the new weights are then with inference).
    shell.ship(b, answer.values.data, shell.draining());
    return;
  }
  if (!shell.draining()) step(b, answer, shell);
}

}  // namespace dvla::actors
