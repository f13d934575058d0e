#include <dvla/actors/sampling/continuous_collection.hpp>

namespace dvla::actors {

// The seed stream of a buffer: buffer 0 keeps the sampler's own (as without double buffering).
void ContinuousCollection::start(EnvBuffer& b, SamplerShell& shell) {
  const uint64_t stream = (uint64_t{b.index} << 32) | shell.id();
  b.env->reset(envs::derive_seeds(shell.seed(), stream, b.env->size()));
}

// Draining, a buffer still needs the answer that bootstraps its last segment.
bool ContinuousCollection::wants_actions(const EnvBuffer& b, bool draining) const {
  return !draining || !b.segment->empty();
}

// The answer after a full (or, draining, the final) segment's last step closes it.
bool ContinuousCollection::next_answer_ships(const EnvBuffer& b, bool draining) const {
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
  if (!shell.draining()) step(b, answer, shell);
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
