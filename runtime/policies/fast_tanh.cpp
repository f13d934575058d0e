#include <dvla/runtime/policies/fast_tanh.hpp>

#include <ATen/ATen.h>
#include <torch/autograd.h>

namespace dvla {
namespace {

constexpr int64_t kSigmoidFormMinElements = 4096;

at::Tensor sigmoid_form(const at::Tensor& x) { return at::sigmoid(x * 2).mul_(2).sub_(1); }

// The sigmoid form forward; backward from the output as tanh's (one kernel, not three).
struct SigmoidTanh : torch::autograd::Function<SigmoidTanh> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x) {
    auto y = sigmoid_form(x);
    ctx->save_for_backward({y});
    return y;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    return {at::tanh_backward(grad[0], ctx->get_saved_variables()[0])};
  }
};

}  // namespace

at::Tensor fast_tanh(const at::Tensor& x) {
  if (x.numel() < kSigmoidFormMinElements) return at::tanh(x);
  if (at::GradMode::is_enabled() && x.requires_grad()) return SigmoidTanh::apply(x);
  return sigmoid_form(x);
}

}  // namespace dvla
