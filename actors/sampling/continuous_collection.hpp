#pragma once
// ContinuousCollection (async) and LockStepCollection (sync): segments of a fixed length,
// episodes running across them (actors/sampling/collection.hpp).
#include <dvla/actors/sampling/collection.hpp>

namespace dvla::actors {

class ContinuousCollection : public Collection {
 public:
  void start(EnvBuffer& b, SamplerShell& shell) override;
  bool wants_actions(const EnvBuffer& b, bool draining) const override;
  bool needs_credit(const EnvBuffer& b, bool draining) const override;
  void on_answer(EnvBuffer& b, const msg::ActionBatch& answer, SamplerShell& shell) override;

 protected:
  // Steps b with `answer` until the budget is spent.
  static void step(EnvBuffer& b, const msg::ActionBatch& answer, SamplerShell& shell);
};

class LockStepCollection final : public ContinuousCollection {
 public:
  int buffers(int) const override { return 1; }
  bool may_request(int unacknowledged) const override { return unacknowledged == 0; }
  bool needs_credit(const EnvBuffer& b, bool draining) const override;
  void on_answer(EnvBuffer& b, const msg::ActionBatch& answer, SamplerShell& shell) override;
};

}  // namespace dvla::actors
