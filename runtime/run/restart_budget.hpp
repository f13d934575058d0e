#pragma once
// RestartBudget: how often one actor may be restarted (fault.max_restarts within any
// fault.window_s seconds). Failures that crowd into the window mean a restart does not help (a
// broken simulator, a bad config): the one over the budget ends the run instead.
#include <chrono>
#include <deque>

namespace dvla {

class RestartBudget {
 public:
  using Clock = std::chrono::steady_clock;

  RestartBudget(int max_restarts, double window_s) : max_(max_restarts), window_(window_s) {}

  // A failure at `now`: true, and counted, when a restart is within the budget.
  bool allow(Clock::time_point now = Clock::now());
  int total() const { return total_; }  // restarts allowed so far
  int max_restarts() const { return max_; }
  double window_s() const { return window_.count(); }

 private:
  int max_;
  std::chrono::duration<double> window_;
  std::deque<Clock::time_point> recent_;  // restarts within the window, oldest first
  int total_ = 0;
};

}  // namespace dvla
