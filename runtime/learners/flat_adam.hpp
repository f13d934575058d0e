#pragma once
// FlatAdam: LibTorch's Adam (no weight decay, no AMSGrad) and global gradient-norm clipping over a
// module's trained parameters, whose gradients and moments live in single flat buffers: a step is
// a dozen tensor operations however many parameter tensors the module has, where
// torch::optim::Adam and clip_grad_norm_ take a few per tensor (147 us of a 1 ms gradient step of
// the CartPole MLP, whose tensors are tiny). Checkpoints keep torch::optim::Adam's format
// (optimizer.pt), so either reads the other's.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla {

class FlatAdam {
 public:
  // Over `parameters` (a module's, in its order; those without requires_grad are kept only for
  // the checkpoint format). Each trained parameter's gradient becomes a view of the flat gradient
  // buffer, where backward() accumulates in place.
  FlatAdam(std::vector<at::Tensor> parameters, double learning_rate, double eps = 1e-8);

  double learning_rate() const { return learning_rate_; }
  void set_learning_rate(double rate) { learning_rate_ = rate; }

  void zero_grad();
  // Scales the gradients so that their global L2 norm is at most `max_norm` (as
  // torch::nn::utils::clip_grad_norm_); returns the norm before.
  double clip_grad_norm(double max_norm);
  void step();
  int64_t steps() const { return steps_; }

  // The state as torch::optim::Adam saves it (optimizer.pt), and back from such a file.
  Expected<std::string> state_bytes() const;
  Status load_state(const std::string& path);

 private:
  // The gradients are views of grad_ again (a caller may have replaced or reset one).
  void view_gradients();

  std::vector<at::Tensor> parameters_;  // all, in the module's order
  std::vector<at::Tensor> trained_;     // those with requires_grad, in order
  at::Tensor grad_, exp_avg_, exp_avg_sq_;
  int64_t steps_ = 0;
  double learning_rate_;
  double eps_;
  static constexpr double beta1_ = 0.9, beta2_ = 0.999;
};

}  // namespace dvla
