#include <dvla/runtime/tensorboard/summary_values.hpp>

#include <algorithm>

namespace dvla::tensorboard {

HistogramValue integer_histogram(std::string tag, const std::vector<uint64_t>& counts) {
  HistogramValue h;
  h.tag = std::move(tag);
  bool seen = false;
  for (size_t k = 0; k < counts.size(); ++k) {
    const double n = static_cast<double>(counts[k]), x = static_cast<double>(k);
    h.limits.push_back(x + 0.5);  // bucket k: (k - 0.5, k + 0.5]
    h.counts.push_back(n);
    if (n == 0) continue;
    h.min = seen ? std::min(h.min, x) : x;
    h.max = x;
    seen = true;
    h.count += n;
    h.sum += n * x;
    h.sum_squares += n * x * x;
  }
  return h;
}

}  // namespace dvla::tensorboard
