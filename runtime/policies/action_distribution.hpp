#pragma once
// The action distributions of a policy head: categorical over discrete actions (logits) and a
// diagonal Gaussian over continuous ones (mean and log standard deviation).
#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <dvla/envs/env_spec.hpp>

namespace dvla {

class ActionDistribution {
 public:
  // Discrete: `params` are logits [N, choices]. Continuous: `params` is the mean [N, dim] and
  // `log_std` [dim].
  ActionDistribution(const envs::ActionSpace& space, at::Tensor params, at::Tensor log_std = {});

  at::Tensor sample(at::Generator& generator) const;     // [N, tensor_dim] float32
  at::Tensor mode() const;                               // [N, tensor_dim] float32
  at::Tensor log_prob(const at::Tensor& actions) const;  // [N]
  at::Tensor entropy() const;                            // [N]

 private:
  bool discrete_;
  at::Tensor params_;   // logits or mean
  at::Tensor log_std_;  // continuous only
};

}  // namespace dvla
