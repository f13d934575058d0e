#pragma once
// EpisodicCollection (GRPO): rounds of whole episodes (actors/sampling/collection.hpp). Every
// group of `group_size` envs of a buffer starts from one initial state, each env runs one episode
// (steps after its end are marked invalid), and the segment ships, unbootstrapped, once every
// episode of the round has ended; then the next round starts. In lock-step rounds (sync) a
// sampler has one buffer and starts a round only after the last one was acknowledged.
#include <cstdint>

#include <dvla/actors/sampling/collection.hpp>

namespace dvla::actors {

class EpisodicCollection final : public Collection {
 public:
  EpisodicCollection(int group_size, bool lock_step)
      : group_size_(group_size), lock_step_(lock_step) {}

  int buffers(int requested) const override { return lock_step_ ? 1 : requested; }
  int64_t segment_length(const envs::BatchedEnv& env, int64_t configured) const override;
  void start(EnvBuffer& b, SamplerShell& shell) override;
  bool wants_actions(const EnvBuffer&, bool draining) const override { return !draining; }
  bool needs_credit(const EnvBuffer& b, bool) const override { return b.segment->empty(); }
  bool may_request(int unacknowledged) const override { return !lock_step_ || unacknowledged == 0; }
  void on_answer(EnvBuffer& b, const msg::ActionBatch& answer, SamplerShell& shell) override;

 private:
  int group_size_;
  bool lock_step_;
  uint64_t round_ = 0;  // rounds started by this sampler
};

}  // namespace dvla::actors
