#include <dvla/runtime/run/restart_budget.hpp>

namespace dvla {

bool RestartBudget::allow(Clock::time_point now) {
  while (!recent_.empty() && now - recent_.front() >= window_) recent_.pop_front();
  if (static_cast<int>(recent_.size()) >= max_) return false;
  recent_.push_back(now);
  ++total_;
  return true;
}

}  // namespace dvla
