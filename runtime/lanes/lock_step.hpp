#pragma once
// LockStep: the trainer's view of a synchronous round (mode = sync), the baseline the Swimlane is
// measured against. Every sampler ships a segment and waits for its acknowledgement; a round is
// complete once every sampler still collecting waits. The trainer then either trains (a batch is
// gathered) and releases the samplers only after the new weights reached every replica, or
// releases them at once to collect more with the same version. Sampling and training never
// overlap.
#include <cstddef>
#include <cstdint>
#include <set>

namespace dvla {

class LockStep {
 public:
  explicit LockStep(size_t samplers) : collecting_(samplers) {}

  // Sampler `sampler` shipped a segment and waits; `last`: it is its final one.
  void waiting(uint32_t sampler, bool last);
  // Every sampler still collecting waits (and at least one does).
  bool round_complete() const;
  // The waiting samplers go on; those whose segment was their last leave the lock-step.
  void release();
  // Sampler `sampler` leaves without a last segment (a stage of the graph dropped it).
  void leave(uint32_t sampler);

  size_t collecting() const { return collecting_; }
  size_t waiting_count() const { return waiting_.size(); }

 private:
  size_t collecting_;
  std::set<uint32_t> waiting_;
  size_t leaving_ = 0;  // waiting samplers that sent their last segment
};

}  // namespace dvla
