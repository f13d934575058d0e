#include <dvla/runtime/policies/observation_normalizer.hpp>

#include <ATen/ATen.h>
#include <torch/utils.h>

namespace dvla {
namespace {

constexpr double variance_floor = 1e-8;  // keeps constant observations finite
constexpr double prior_count = 1e-4;     // the first batch all but replaces the initial (0, 1)

}  // namespace

ObservationNormalizer::ObservationNormalizer(int64_t size) {
  mean_ = register_parameter("mean", torch::zeros({size}), /*requires_grad=*/false);
  variance_ = register_parameter("variance", torch::ones({size}), /*requires_grad=*/false);
  count_ = register_parameter("count", torch::full({1}, prior_count), /*requires_grad=*/false);
}

torch::Tensor ObservationNormalizer::forward(const torch::Tensor& observations) const {
  return ((observations - mean_) / (variance_ + variance_floor).sqrt()).clamp(-clip, clip);
}

double ObservationNormalizer::count() const { return count_.item<double>(); }

void ObservationNormalizer::update(const torch::Tensor& observations) {
  if (observations.size(0) == 0) return;
  torch::NoGradGuard no_grad;
  const auto x = observations.to(at::kDouble);
  const double n = static_cast<double>(x.size(0));
  const double m = count();
  const auto batch_mean = x.mean(0);
  const auto batch_variance = x.var(0, /*unbiased=*/false);
  const auto mean = mean_.to(at::kDouble);
  const auto delta = batch_mean - mean;
  const double total = m + n;
  const auto m2 =
      variance_.to(at::kDouble) * m + batch_variance * n + delta.pow(2) * (m * n / total);
  mean_.copy_(mean + delta * (n / total));
  variance_.copy_(m2 / total);
  count_.fill_(total);
}

}  // namespace dvla
