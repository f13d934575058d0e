#include <dvla/runtime/distribution/uplink_budget.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dvla {

namespace {
constexpr double saved_seconds = 0.05;  // the most idle time that may be spent at once
}

UplinkBudget::UplinkBudget(double bytes_per_second, Clock::time_point now)
    : rate_(bytes_per_second), last_(now) {
  if (bytes_per_second < 0)
    throw std::invalid_argument("uplink budget: " + std::to_string(bytes_per_second) +
                                " bytes per second must not be negative");
}

double UplinkBudget::take(size_t bytes, Clock::time_point now) {
  if (rate_ <= 0) return 0;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min(tokens_ + rate_ * std::max(elapsed, 0.0), rate_ * saved_seconds);
  if (tokens_ < 0) return -tokens_ / rate_;
  tokens_ -= static_cast<double>(bytes);
  return 0;
}

}  // namespace dvla
