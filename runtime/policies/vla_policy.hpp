#pragma once
// VlaPolicy: a small vision-language-action model. A convolutional encoder shared by the cameras
// whose every layer is modulated by the instruction (FiLM), spatial-softmax keypoints per camera,
// an instruction encoder (mean-pooled token embeddings, or a transformer in the larger presets),
// proprioception, a shared trunk, a Gaussian action head and a value head.
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/transformerlayer.h>

#include <memory>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

struct VlaSize {
  std::vector<int64_t> conv_channels;  // three convolutions, strides 4, 2, 1
  int64_t embedding;                   // token embedding and instruction feature width
  int64_t trunk;                       // width of the shared trunk
  int64_t trunk_layers;
  int64_t transformer_layers;  // 0: mean-pooled embeddings
};

// tiny (tests), small (default), base, large (hundreds of millions of parameters, for throughput).
VlaSize vla_size(VlaPreset preset);

class ActionDistribution;

class VlaPolicy final : public Policy {
 public:
  // Initial parameters are drawn from `seed`, so replicas built with one seed are identical.
  VlaPolicy(const envs::EnvSpec& spec, const VlaSize& size, uint64_t seed);

  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override;
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override;
  torch::Tensor value(const PolicyInput& input) override;

  static constexpr double min_log_std = -2.0, max_log_std = 0.5;

 private:
  torch::Tensor log_std() const;
  torch::Tensor features(const PolicyInput& input);                               // [N, trunk]
  torch::Tensor instruction(const torch::Tensor& tokens);                         // [N, embedding]
  torch::Tensor see(const torch::Tensor& images, const torch::Tensor& language);  // [N, keypoints]

  envs::EnvSpec spec_;
  VlaSize size_;
  torch::nn::Embedding embedding_{nullptr};
  torch::nn::ModuleList transformer_{nullptr};
  torch::nn::ModuleList convs_{nullptr}, films_{nullptr};
  torch::nn::Sequential trunk_{nullptr};
  torch::nn::Linear mean_{nullptr}, value_{nullptr};
  torch::Tensor log_std_;
};

}  // namespace dvla
