#include <dvla/runtime/policies/action_distribution.hpp>

#include <ATen/ATen.h>

#include <cmath>

namespace dvla {

ActionDistribution::ActionDistribution(const envs::ActionSpace& space, at::Tensor params,
                                       at::Tensor log_std)
    : discrete_(space.is_discrete()), params_(std::move(params)), log_std_(std::move(log_std)) {
  if (discrete_) params_ = at::log_softmax(params_, -1);
}

at::Tensor ActionDistribution::sample(at::Generator& generator) const {
  if (params_.device() != generator.device()) {
    // A host generator cannot draw on a GPU: draw on its device from the same (small) parameters.
    ActionDistribution there = *this;
    there.params_ = params_.to(generator.device());
    if (log_std_.defined()) there.log_std_ = log_std_.to(generator.device());
    return there.sample(generator).to(params_.device());
  }
  if (discrete_) return at::multinomial(params_.exp(), 1, true, generator).to(at::kFloat);
  return at::normal(params_, log_std_.exp().expand_as(params_), generator);
}

at::Tensor ActionDistribution::mode() const {
  if (discrete_) return params_.argmax(-1, /*keepdim=*/true).to(at::kFloat);
  return params_;
}

at::Tensor ActionDistribution::log_prob(const at::Tensor& actions) const {
  if (discrete_) return params_.gather(-1, actions.to(at::kLong)).squeeze(-1);
  const auto var = (2 * log_std_).exp();
  const auto lp = -(actions - params_).pow(2) / (2 * var) - log_std_ - 0.5 * std::log(2 * M_PI);
  return lp.sum(-1);
}

at::Tensor ActionDistribution::entropy() const {
  if (discrete_) return -(params_.exp() * params_).sum(-1);
  const auto per_dim = log_std_ + 0.5 * (1.0 + std::log(2 * M_PI));
  return per_dim.sum(-1).expand({params_.size(0)});
}

}  // namespace dvla
