#pragma once
// Metrics: named measurements from one source at one instant, sent to the supervisor.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla::msg {

struct Metrics {
  std::string source;
  uint64_t timestamp_ns = 0;
  std::vector<std::pair<std::string, double>> samples;
};

MetricsFrame build(const Metrics& m);
Expected<Metrics> read(const MetricsFrame& f);

}  // namespace dvla::msg
