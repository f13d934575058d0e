#pragma once
// PolicyLagCounts: how many trained samples were collected how many versions behind the learner
// (the distribution behind the mean policy lag).
#include <cstdint>
#include <vector>

namespace dvla {

struct PolicyLagCounts {
  std::vector<uint64_t> samples;  // [lag]: samples collected `lag` versions behind

  void add(uint64_t lag, uint64_t count) {
    if (samples.size() <= lag) samples.resize(lag + 1, 0);
    samples[lag] += count;
  }
  uint64_t total() const {
    uint64_t n = 0;
    for (auto c : samples) n += c;
    return n;
  }
  double mean() const {
    double sum = 0;
    for (size_t lag = 0; lag < samples.size(); ++lag)
      sum += static_cast<double>(lag) * static_cast<double>(samples[lag]);
    const auto n = total();
    return n ? sum / static_cast<double>(n) : 0.0;
  }
};

}  // namespace dvla
