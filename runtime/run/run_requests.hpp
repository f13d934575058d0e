#pragma once
// RunRequests: what the caller of a running train() may ask of it from any thread (a signal
// waiter, a UI, a test): to end early, as it would at the end of its env-step budget (the
// trainer's latest version is checkpointed and returned with the run's status), or to evaluate
// its latest weights now, beside the periodic evaluations. Owned by the caller, who keeps it
// alive for the whole train() call.
#include <atomic>
#include <cstdint>

namespace dvla {

class RunRequests {
 public:
  void request_stop() noexcept { stop_.store(true, std::memory_order_release); }
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_acquire); }

  // Each call asks for one evaluation; train() runs as many as were asked, one after another.
  void request_evaluation() noexcept { evaluations_.fetch_add(1, std::memory_order_acq_rel); }
  uint64_t evaluations_requested() const noexcept {
    return evaluations_.load(std::memory_order_acquire);
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> evaluations_{0};
};

}  // namespace dvla
