#pragma once
// PPO: the clipped surrogate objective over behaviour log-probabilities (which also corrects for
// policy lag: the ratio is taken against the policy that actually acted), a value loss, an entropy
// bonus, and epochs of shuffled minibatches with Adam and gradient clipping.
#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <memory>

#include "runtime/policy.hpp"
#include "runtime/ppo_config.hpp"
#include "runtime/training_batch.hpp"

namespace torch::optim {
class Adam;
}

namespace dvla {

struct PpoLoss {
  at::Tensor total;          // what is minimised
  at::Tensor policy;         // -min(r A, clip(r) A), averaged
  at::Tensor value;          // 0.5 (V - R)^2, averaged
  at::Tensor entropy;        // mean entropy
  double approx_kl = 0;      // mean (r - 1) - log r
  double clip_fraction = 0;  // share of samples whose ratio was clipped
};

// The loss of one minibatch given the current policy's evaluation of it.
PpoLoss ppo_loss(const PolicyEvaluation& now, const at::Tensor& behaviour_log_probs,
                 const at::Tensor& advantages, const at::Tensor& returns, const PpoConfig& config);

struct PpoStats {
  double policy_loss = 0, value_loss = 0, entropy = 0, approx_kl = 0, clip_fraction = 0;
  int64_t samples = 0;
  int gradient_steps = 0;
};

class PpoLearner {
 public:
  PpoLearner(Policy& policy, const PpoConfig& config, uint64_t seed);
  ~PpoLearner();
  PpoStats update(const TrainingBatch& batch);
  torch::optim::Adam& optimizer() { return *optimizer_; }

 private:
  Policy& policy_;
  PpoConfig config_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  at::Generator generator_;  // minibatch shuffling
};

}  // namespace dvla
