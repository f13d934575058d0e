#pragma once
// Running observation normalisation (model.normalize_observations): each observation value is
// shifted and scaled by the running mean and variance of what the learner has trained on, then
// clipped to +-clip. The statistics are parameters without gradient, so they are part of the flat
// weights: checkpointed with them, shipped with every version, and applied alike by inference,
// evaluation and the learner. Only the learner updates them (Policy::update_statistics).
#include <torch/nn/module.h>

namespace dvla {

class ObservationNormalizer : public torch::nn::Module {
 public:
  static constexpr double clip = 10.0;  // as Stable-Baselines3's VecNormalize

  explicit ObservationNormalizer(int64_t size);

  // [N, size] observations, normalised.
  torch::Tensor forward(const torch::Tensor& observations) const;
  // Merges the rows of `observations` [N, size] into the running statistics (the parallel
  // algorithm of Chan et al., computed in double precision).
  void update(const torch::Tensor& observations);

  torch::Tensor mean() const { return mean_; }
  torch::Tensor variance() const { return variance_; }
  double count() const;

 private:
  torch::Tensor mean_, variance_, count_;
};

}  // namespace dvla
