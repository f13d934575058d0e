#include <dvla/runtime/learners/flat_adam.hpp>

#include <ATen/ATen.h>
#include <torch/optim/adam.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include <dvla/runtime/learners/optimizer_state.hpp>

namespace dvla {
namespace {

// torch::optim::Adam keys a parameter's state by its TensorImpl's address.
std::string state_key(const at::Tensor& parameter) {
  return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}

int64_t total_size(const std::vector<at::Tensor>& tensors) {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel();
  return n;
}

// Applies f(tensor, its slice of a flat buffer) to each of `tensors` in order.
template <class F>
void for_each_slice(const std::vector<at::Tensor>& tensors, F f) {
  int64_t offset = 0;
  for (const auto& t : tensors) {
    f(t, offset, t.numel());
    offset += t.numel();
  }
}

}  // namespace

FlatAdam::FlatAdam(std::vector<at::Tensor> parameters, double learning_rate, double eps)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate), eps_(eps) {
  for (const auto& p : parameters_)
    if (p.requires_grad()) trained_.push_back(p);
  const auto options = trained_.empty() ? at::TensorOptions(at::kFloat) : trained_[0].options();
  grad_ = at::zeros({total_size(trained_)}, options.requires_grad(false));
  exp_avg_ = at::zeros_like(grad_);
  exp_avg_sq_ = at::zeros_like(grad_);
  view_gradients();
}

void FlatAdam::view_gradients() {
  for_each_slice(trained_, [&](const at::Tensor& p, int64_t offset, int64_t n) {
    const auto& g = p.grad();
    if (g.defined() && g.data_ptr() == grad_.data_ptr<float>() + offset) return;
    p.mutable_grad() = grad_.narrow(0, offset, n).view(p.sizes());
  });
}

void FlatAdam::zero_grad() {
  view_gradients();
  grad_.zero_();
}

double FlatAdam::clip_grad_norm(double max_norm) {
  view_gradients();
  const double norm = grad_.norm().item<double>();
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1) grad_.mul_(coef);
  return norm;
}

void FlatAdam::step() {
  view_gradients();
  ++steps_;
  const double bias_correction1 = 1 - std::pow(beta1_, static_cast<double>(steps_));
  const double bias_correction2 = 1 - std::pow(beta2_, static_cast<double>(steps_));
  exp_avg_.mul_(beta1_).add_(grad_, 1 - beta1_);
  exp_avg_sq_.mul_(beta2_).addcmul_(grad_, grad_, 1 - beta2_);
  const auto denom = exp_avg_sq_.sqrt().div_(std::sqrt(bias_correction2)).add_(eps_);
  const auto update = exp_avg_.div(denom).mul_(-learning_rate_ / bias_correction1);
  at::NoGradGuard no_grad;
  for_each_slice(trained_, [&](const at::Tensor& p, int64_t offset, int64_t n) {
    p.add_(update.narrow(0, offset, n).view(p.sizes()));
  });
}

Expected<std::string> FlatAdam::state_bytes() const {
  torch::optim::Adam adam(parameters_, torch::optim::AdamOptions(learning_rate_).eps(eps_));
  if (steps_ > 0)
    for_each_slice(trained_, [&](const at::Tensor& p, int64_t offset, int64_t n) {
      auto s = std::make_unique<torch::optim::AdamParamState>();
      s->step(steps_);
      s->exp_avg(exp_avg_.narrow(0, offset, n).view(p.sizes()).clone());
      s->exp_avg_sq(exp_avg_sq_.narrow(0, offset, n).view(p.sizes()).clone());
      adam.state()[state_key(p)] = std::move(s);
    });
  return optimizer_bytes(adam);
}

Status FlatAdam::load_state(const std::string& path) {
  torch::optim::Adam adam(parameters_, torch::optim::AdamOptions(learning_rate_).eps(eps_));
  if (auto loaded = load_optimizer(adam, path); !loaded) return loaded;
  int64_t steps = 0;
  auto exp_avg = at::zeros_like(exp_avg_), exp_avg_sq = at::zeros_like(exp_avg_sq_);
  Status status = Status::ok();
  for_each_slice(trained_, [&](const at::Tensor& p, int64_t offset, int64_t n) {
    const auto found = adam.state().find(state_key(p));
    if (found == adam.state().end()) return;  // never stepped: zero moments
    const auto& s = static_cast<const torch::optim::AdamParamState&>(*found->second);
    if (s.exp_avg().numel() != n || s.exp_avg_sq().numel() != n) {
      status = Error("the optimizer state in '" + path + "' does not fit the parameters");
      return;
    }
    steps = std::max(steps, s.step());
    exp_avg.narrow(0, offset, n).copy_(s.exp_avg().reshape({n}));
    exp_avg_sq.narrow(0, offset, n).copy_(s.exp_avg_sq().reshape({n}));
  });
  if (!status) return status;
  exp_avg_.copy_(exp_avg);
  exp_avg_sq_.copy_(exp_avg_sq);
  steps_ = steps;
  return Status::ok();
}

}  // namespace dvla
