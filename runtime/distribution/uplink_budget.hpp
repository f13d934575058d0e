#pragma once
// UplinkBudget: a cap on the bytes per second a distributor sends to the distributors below it
// (distribution.uplink_mib_s), so that weight versions leave room on a shared link for segments
// and control. A token bucket that may go into debt by one chunk: a chunk goes when the budget is
// not in debt, and the next waits until the debt is paid back at the cap's rate. Idle time saves
// up at most 50 ms of sending.
#include <chrono>
#include <cstddef>

namespace dvla {

class UplinkBudget {
 public:
  using Clock = std::chrono::steady_clock;

  // 0: no cap. Throws std::invalid_argument for a negative rate.
  explicit UplinkBudget(double bytes_per_second = 0, Clock::time_point now = Clock::now());

  // 0 when `bytes` may go now (and they are counted); else the seconds until the next may.
  double take(size_t bytes, Clock::time_point now = Clock::now());

  bool capped() const { return rate_ > 0; }

 private:
  double rate_;
  double tokens_ = 0;  // bytes that may go; negative: the debt of the last chunk
  Clock::time_point last_;
};

}  // namespace dvla
