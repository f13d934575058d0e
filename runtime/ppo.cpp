#include "runtime/ppo.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>

namespace dvla {

PpoLoss ppo_loss(const PolicyEvaluation& now, const at::Tensor& behaviour_log_probs,
                 const at::Tensor& advantages, const at::Tensor& returns, const PpoConfig& config) {
  const auto log_ratio = now.log_probs - behaviour_log_probs;
  const auto ratio = log_ratio.exp();
  const auto clipped = ratio.clamp(1.0 - config.clip, 1.0 + config.clip);
  PpoLoss l;
  l.policy = -at::min(ratio * advantages, clipped * advantages).mean();
  l.value = 0.5 * (now.values - returns).pow(2).mean();
  l.entropy = now.entropy.mean();
  l.total = l.policy + config.value_coef * l.value - config.entropy_coef * l.entropy;
  {
    at::NoGradGuard no_grad;
    l.approx_kl = ((ratio - 1) - log_ratio).mean().item<double>();
    l.clip_fraction = ((ratio - 1).abs() > config.clip).to(at::kFloat).mean().item<double>();
  }
  return l;
}

PpoLearner::PpoLearner(Policy& policy, const PpoConfig& config, uint64_t seed)
    : policy_(policy),
      config_(config),
      optimizer_(std::make_unique<torch::optim::Adam>(
          policy.parameters(), torch::optim::AdamOptions(config.learning_rate).eps(1e-5))),
      generator_(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

PpoLearner::~PpoLearner() = default;

PpoStats PpoLearner::update(const TrainingBatch& batch) {
  PpoStats stats;
  const int64_t n = batch.size();
  stats.samples = n;
  if (n == 0) return stats;
  const int64_t mb = std::min<int64_t>(config_.minibatch_size, n);
  for (int epoch = 0; epoch < config_.epochs; ++epoch) {
    const auto order = at::randperm(n, generator_, at::kLong);
    for (int64_t start = 0; start + mb <= n; start += mb) {
      const auto idx = order.narrow(0, start, mb);
      auto adv = batch.advantages.index_select(0, idx);
      if (config_.normalize_advantages && mb > 1) adv = (adv - adv.mean()) / (adv.std() + 1e-8);
      const auto now =
          policy_.evaluate(batch.inputs.index_select(idx), batch.actions.index_select(0, idx));
      const auto loss = ppo_loss(now, batch.log_probs.index_select(0, idx), adv,
                                 batch.returns.index_select(0, idx), config_);
      optimizer_->zero_grad();
      loss.total.backward();
      torch::nn::utils::clip_grad_norm_(policy_.parameters(), config_.max_grad_norm);
      optimizer_->step();
      stats.policy_loss += loss.policy.item<double>();
      stats.value_loss += loss.value.item<double>();
      stats.entropy += loss.entropy.item<double>();
      stats.approx_kl += loss.approx_kl;
      stats.clip_fraction += loss.clip_fraction;
      ++stats.gradient_steps;
    }
  }
  const double k = std::max(stats.gradient_steps, 1);
  stats.policy_loss /= k;
  stats.value_loss /= k;
  stats.entropy /= k;
  stats.approx_kl /= k;
  stats.clip_fraction /= k;
  return stats;
}

}  // namespace dvla
