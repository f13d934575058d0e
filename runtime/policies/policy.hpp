#pragma once
// Policy: what inference and the learner need from a model. A Policy is a torch::nn::Module, so
// its parameters can be gathered into one flat buffer (FlatParameters) and shipped as a weight
// update. ActorCritic and VlaPolicy are built in; users bring their own by implementing this
// (docs/api.md), or load a TorchScript module (TorchScriptPolicy).
#include <ATen/core/Generator.h>
#include <torch/nn/module.h>

namespace dvla {

// A batch of observations as tensors. Only `state` is always defined.
struct PolicyInput {
  torch::Tensor state;   // float32 [N, obs...]
  torch::Tensor images;  // uint8 [N, cameras, height, width, 3]; undefined: no cameras
  torch::Tensor tokens;  // int64 [N, length]; undefined: no instruction

  int64_t size() const { return state.size(0); }
  PolicyInput index_select(const torch::Tensor& rows) const;
  PolicyInput slice(int64_t begin, int64_t end) const;
  PolicyInput to(const at::Device& device) const;  // the same tensors there (no copy if there)
};

// Where a module's parameters are (the host for one without parameters).
at::Device device_of(const torch::nn::Module& module);

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
  // Chooses actions for a batch of observations: sampled with `generator`, or the most likely
  // ones when `deterministic`. Called without gradient.
  virtual PolicyActions act(const PolicyInput& input, bool deterministic,
                            at::Generator& generator) = 0;
  // Log-probabilities, entropy and values for the learner, with gradient.
  virtual PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) = 0;
  // Critic estimates [N].
  virtual torch::Tensor value(const PolicyInput& input) = 0;
  // Called by the learner once an update is done, with that batch's observations, before the new
  // version is published: a policy that keeps running statistics of its inputs (ActorCritic's
  // observation normalisation) updates them here, as parameters, so that every copy of the
  // version acts with them. The batch was trained under the statistics it was gathered with.
  virtual void update_statistics(const PolicyInput& batch) { (void)batch; }
};

}  // namespace dvla
