#pragma once
// StopRequest: asks a running train() to end early, from any thread (a signal waiter, a UI, a
// test). The run then ends as it would at the end of its env-step budget: the trainer's latest
// version is checkpointed and returned with the run's status. Owned by the caller, who keeps it
// alive for the whole train() call.
#include <atomic>

namespace dvla {

class StopRequest {
 public:
  void request() noexcept { requested_.store(true, std::memory_order_release); }
  bool requested() const noexcept { return requested_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> requested_{false};
};

}  // namespace dvla
