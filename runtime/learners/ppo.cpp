#include <dvla/runtime/learners/ppo.hpp>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/learners/flat_adam.hpp>

namespace dvla {
namespace {

// ppo.adaptive_kl: the multiplier's step and bounds (rsl_rl's step; bounds relative to the
// scheduled rate, so that a schedule or anneal keeps its meaning).
constexpr double kRateFactorStep = 1.5;
constexpr double kMinRateFactor = 0.01;
constexpr double kMaxRateFactor = 10;

// 0.5 (V - R)^2 averaged; with `sample_values` and clip > 0, PPO2's pessimistic clipped form.
at::Tensor value_loss(const at::Tensor& values, const at::Tensor& returns,
                      const at::Tensor& sample_values, double clip) {
  const auto plain = (values - returns).pow(2);
  if (!sample_values.defined() || clip <= 0) return 0.5 * plain.mean();
  const auto clipped = sample_values + (values - sample_values).clamp(-clip, clip);
  return 0.5 * at::max(plain, (clipped - returns).pow(2)).mean();
}

}  // namespace

PpoLoss ppo_loss(const PolicyEvaluation& now, const at::Tensor& behaviour_log_probs,
                 const at::Tensor& advantages, const at::Tensor& returns, const PpoConfig& config,
                 const at::Tensor& reference_log_probs, const at::Tensor& proximal_log_probs,
                 const at::Tensor& sample_values) {
  // The trust region is around the proximal policy (the behaviour policy when there is none).
  const auto& anchor = proximal_log_probs.defined() ? proximal_log_probs : behaviour_log_probs;
  const auto log_ratio = now.log_probs - anchor;
  const auto ratio = log_ratio.exp();
  const auto clipped = ratio.clamp(1.0 - config.clip, 1.0 + config.clip);
  auto surrogate = at::min(ratio * advantages, clipped * advantages);
  // Stale samples: importance weight proximal / behaviour, a constant of the update.
  if (proximal_log_probs.defined()) {
    auto weight = (proximal_log_probs - behaviour_log_probs).detach().exp();
    if (config.importance_weight_cap > 0) weight = weight.clamp_max(config.importance_weight_cap);
    surrogate = weight * surrogate;
  }
  PpoLoss l;
  l.policy = -surrogate.mean();
  l.value = value_loss(now.values, returns, sample_values, config.value_clip);
  l.entropy = now.entropy.mean();
  l.total = l.policy + config.value_coef * l.value - config.entropy_coef * l.entropy;
  if (reference_log_probs.defined() && config.kl_coef > 0) {
    const auto d = reference_log_probs - now.log_probs;
    l.reference_kl = (d.exp() - d - 1).mean();
    l.total = l.total + config.kl_coef * l.reference_kl;
  }
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
      optimizer_(std::make_unique<FlatAdam>(policy.parameters(), config.learning_rate, 1e-5)),
      generator_(at::make_generator<at::CPUGeneratorImpl>(seed)),
      device_(device_of(policy)) {}

PpoLearner::~PpoLearner() = default;

std::string PpoLearner::rng_state() const {
  const auto state = generator_.get_state().contiguous();
  return to_hex(state.data_ptr<uint8_t>(), static_cast<size_t>(state.numel()));
}

Status PpoLearner::set_rng_state(const std::string& hex) {
  auto bytes = from_hex(hex);
  if (!bytes) return bytes.error().within("learner RNG state");
  const auto expected = generator_.get_state().numel();
  if (static_cast<int64_t>(bytes->size()) != expected)
    return Error("learner RNG state has " + std::to_string(bytes->size()) + " bytes, expected " +
                 std::to_string(expected));
  generator_.set_state(
      at::from_blob(bytes->data(), {static_cast<int64_t>(bytes->size())}, at::kByte).clone());
  return Status::ok();
}

void PpoLearner::set_learning_rate(double rate) {
  config_.learning_rate = rate;
  apply_learning_rate();
}

void PpoLearner::set_learning_rate_factor(double factor) {
  rate_factor_ = std::clamp(factor, kMinRateFactor, kMaxRateFactor);
  apply_learning_rate();
}

void PpoLearner::apply_learning_rate() {
  optimizer_->set_learning_rate(config_.learning_rate * rate_factor_);
}

void PpoLearner::adapt_learning_rate(double approx_kl) {
  if (config_.adaptive_kl <= 0) return;
  // rsl_rl's rule: a step that moved the policy far slows the next ones, one that barely moved
  // it speeds them up (a KL of exactly 0 is a first step from the anchor: nothing to learn).
  if (approx_kl > 2 * config_.adaptive_kl)
    set_learning_rate_factor(rate_factor_ / kRateFactorStep);
  else if (approx_kl > 0 && approx_kl < config_.adaptive_kl / 2)
    set_learning_rate_factor(rate_factor_ * kRateFactorStep);
}

PpoStats PpoLearner::update(TrainingBatch batch) {
  begin(std::move(batch));
  while (step()) {
  }
  return stats();
}

void PpoLearner::begin(TrainingBatch batch) {
  batch_ = std::move(batch);
  sums_ = PpoStats{};
  sums_.samples = batch_.size();
  sums_.learning_rate = config_.learning_rate * rate_factor_;
  epoch_ = 0;
  next_ = 0;
  updating_ = batch_.size() > 0 && config_.epochs > 0;
  if (!updating_) return;
  order_ = at::randperm(batch_.size(), generator_, at::kLong);
  const auto& lag = batch_.policy_lag.samples;
  proximal_pending_ = false;
  proximal_log_probs_ = at::Tensor();
  if (lag.size() <= 1 || batch_.policy_lag.total() <= lag[0]) return;  // no sample lags
  if (config_.proximal_policy == ProximalPolicy::first_visit) {
    // The lagging rows are filled in as the first epoch reaches them (step).
    proximal_log_probs_ = batch_.log_probs.clone();
    proximal_pending_ = true;
    return;
  }
  proximal_log_probs_ = proximal_log_probs(lagging_rows());
  measure_importance_weights();
}

at::Tensor PpoLearner::lagging_rows() const {
  return batch_.sample_lags.defined() ? at::nonzero(batch_.sample_lags > 0).view({-1})
                                      : at::arange(batch_.size(), at::kLong);
}

at::Tensor PpoLearner::lagging_at(const at::Tensor& rows) const {
  // Without per-sample lags every sample counts as lagging (as in lagging_rows).
  return batch_.sample_lags.defined() ? batch_.sample_lags.index_select(0, rows) > 0
                                      : at::ones({rows.numel()}, at::kBool);
}

void PpoLearner::measure_importance_weights() {
  at::NoGradGuard no_grad;
  const auto w = (proximal_log_probs_ - batch_.log_probs).exp().to(at::kDouble);
  const auto n = static_cast<double>(w.numel());
  sums_.importance_weight_max = w.max().item<double>();
  sums_.importance_weight_ess =
      std::pow(w.sum().item<double>(), 2) / (n * w.pow(2).sum().item<double>());
}

at::Tensor PpoLearner::proximal_log_probs(const at::Tensor& lagging) {
  at::NoGradGuard no_grad;
  // A sample of the learner's own version was acted by the proximal policy: its behaviour
  // log-probability is the proximal one, and only the lagging samples need a forward pass.
  auto proximal = batch_.log_probs.clone();
  const int64_t n = lagging.numel();
  const int64_t chunk = std::max<int64_t>(config_.minibatch_size, 1);  // bounds the memory
  for (int64_t start = 0; start < n; start += chunk) {
    const auto idx = lagging.narrow(0, start, std::min(chunk, n - start));
    const auto log_probs = policy_
                               .evaluate(batch_.inputs.index_select(idx).to(device_),
                                         batch_.actions.index_select(0, idx).to(device_))
                               .log_probs.to(at::kCPU);
    proximal.index_copy_(0, idx, log_probs);
  }
  return proximal;
}

bool PpoLearner::step() {
  if (!updating_) return false;
  const int64_t n = batch_.size();
  const int64_t mb = std::min<int64_t>(config_.minibatch_size, n);
  // The batch stays on the host; each minibatch goes to the policy's device (a no-op on the host).
  const auto& device = device_;
  const auto idx = order_.narrow(0, next_, mb);
  auto rows = [&](const at::Tensor& t) { return t.index_select(0, idx).to(device); };
  auto adv = rows(batch_.advantages);
  if (config_.normalize_advantages && mb > 1) adv = (adv - adv.mean()) / (adv.std() + 1e-8);
  const auto now =
      policy_.evaluate(batch_.inputs.index_select(idx).to(device), rows(batch_.actions));
  if (proximal_pending_) record_first_visit(idx, now.log_probs);
  const auto reference =
      batch_.reference_log_probs.defined() ? rows(batch_.reference_log_probs) : at::Tensor();
  const auto proximal = proximal_log_probs_.defined() ? rows(proximal_log_probs_) : at::Tensor();
  const auto sample_values = config_.value_clip > 0 ? rows(batch_.values) : at::Tensor();
  const auto loss = ppo_loss(now, rows(batch_.log_probs), adv, rows(batch_.returns), config_,
                             reference, proximal, sample_values);
  if (config_.target_kl > 0 && loss.approx_kl > 1.5 * config_.target_kl) {
    finish();  // the policy has moved far enough from the samples' for this batch
    return false;
  }
  optimizer_->zero_grad();
  loss.total.backward();
  optimizer_->clip_grad_norm(config_.max_grad_norm);
  adapt_learning_rate(loss.approx_kl);  // this step already runs at the adapted rate
  optimizer_->step();
  sums_.learning_rate = config_.learning_rate * rate_factor_;
  sums_.policy_loss += loss.policy.item<double>();
  sums_.value_loss += loss.value.item<double>();
  sums_.entropy += loss.entropy.item<double>();
  sums_.approx_kl += loss.approx_kl;
  sums_.clip_fraction += loss.clip_fraction;
  if (loss.reference_kl.defined()) sums_.reference_kl += loss.reference_kl.item<double>();
  ++sums_.gradient_steps;
  next_ += mb;
  if (next_ + mb > n) {  // the epoch's last full minibatch is done
    if (proximal_pending_) complete_first_visits(order_.narrow(0, next_, n - next_));
    next_ = 0;
    if (++epoch_ == config_.epochs) {
      finish();
      return false;
    }
    order_ = at::randperm(n, generator_, at::kLong);
  }
  return true;
}

void PpoLearner::record_first_visit(const at::Tensor& idx, const at::Tensor& log_probs) {
  // Rows of the learner's own version keep their behaviour log-probabilities (exact proximal
  // ones); the lagging rows take this pass's, so their ratio starts at 1 in this step.
  const auto fresh = log_probs.detach().to(at::kCPU);
  proximal_log_probs_.index_copy_(
      0, idx, at::where(lagging_at(idx), fresh, batch_.log_probs.index_select(0, idx)));
}

void PpoLearner::complete_first_visits(const at::Tensor& unvisited) {
  proximal_pending_ = false;
  // The rows no full minibatch of the first epoch took; later epochs may draw them.
  if (epoch_ + 1 < config_.epochs && unvisited.numel() > 0) {
    const auto lagging = unvisited.masked_select(lagging_at(unvisited));
    if (lagging.numel() > 0) {
      const auto filled = proximal_log_probs(lagging);
      proximal_log_probs_.index_copy_(0, lagging, filled.index_select(0, lagging));
    }
  }
  measure_importance_weights();
}

void PpoLearner::finish() {
  // An update that ended within its first epoch (ppo.target_kl) reports the weights of the rows
  // it reached; the others count as weight 1.
  if (proximal_pending_) {
    proximal_pending_ = false;
    measure_importance_weights();
  }
  policy_.update_statistics(batch_.inputs.to(device_));
  updating_ = false;
  batch_ = TrainingBatch{};  // release the observations
  proximal_log_probs_ = at::Tensor();
}

PpoStats PpoLearner::stats() const {
  PpoStats s = sums_;
  const double k = std::max(s.gradient_steps, 1);
  s.policy_loss /= k;
  s.value_loss /= k;
  s.entropy /= k;
  s.approx_kl /= k;
  s.clip_fraction /= k;
  s.reference_kl /= k;
  return s;
}

}  // namespace dvla
