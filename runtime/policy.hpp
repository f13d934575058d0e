#pragma once
// Policy: what inference and the learner need from a model. A Policy is a torch::nn::Module, so
// its parameters can be gathered into one flat buffer (FlatParameters) and shipped as a weight
// update. ActorCritic is the built-in one; users bring their own by implementing this.
#include <ATen/core/Generator.h>
#include <torch/nn/module.h>

namespace dvla {

struct PolicyActions {
  torch::Tensor actions;    // [N, action tensor dim] float32; a discrete action is its index
  torch::Tensor log_probs;  // [N]
  torch::Tensor values;     // [N]
};

struct PolicyEvaluation {
  torch::Tensor log_probs;  // [N] of the given actions, with gradient
  torch::Tensor entropy;    // [N]
  torch::Tensor values;     // [N]
};

class Policy : public torch::nn::Module {
 public:
  // Chooses actions for a batch of observations [N, obs...]: sampled with `generator`, or the
  // most likely ones when `deterministic`. Called without gradient.
  virtual PolicyActions act(const torch::Tensor& observations, bool deterministic,
                            at::Generator& generator) = 0;
  // Log-probabilities, entropy and values for the learner, with gradient.
  virtual PolicyEvaluation evaluate(const torch::Tensor& observations,
                                    const torch::Tensor& actions) = 0;
  // Critic estimates [N].
  virtual torch::Tensor value(const torch::Tensor& observations) = 0;
};

}  // namespace dvla
