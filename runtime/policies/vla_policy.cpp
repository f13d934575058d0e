#include <dvla/runtime/policies/vla_policy.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/modules/activation.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>

#include <dvla/runtime/policies/action_distribution.hpp>

namespace dvla {

VlaSize vla_size(VlaPreset preset) {
  switch (preset) {
    case VlaPreset::tiny:
      return {{8, 16, 16}, 16, 64, 1, 0};
    case VlaPreset::small:
      return {{16, 32, 32}, 32, 256, 2, 0};
    case VlaPreset::base:
      return {{32, 64, 64}, 64, 1024, 3, 1};
    case VlaPreset::large:
      break;
  }
  return {{64, 128, 256}, 256, 8192, 4, 2};
}

namespace {

// The head emits logits (discrete actions) or the Gaussian's mean (continuous ones).
// Every parameter drawn from one seeded generator (the global one is shared by all threads):
// weights uniform in +-1/sqrt(fan in) like torch's defaults, biases zero.
void initialise(torch::nn::Module& module, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  torch::NoGradGuard no_grad;
  for (auto& p : module.named_parameters()) {
    auto& t = p.value();
    if (t.dim() < 2) {
      t.zero_();
      continue;
    }
    const double fan_in = static_cast<double>(t.numel() / t.size(0));
    const double bound = 1.0 / std::sqrt(fan_in);
    t.uniform_(-bound, bound, gen);
  }
}

// Expected image coordinates of each channel's softmax: [N, C, H, W] -> [N, 2C] in [-1, 1].
torch::Tensor spatial_softmax(const torch::Tensor& x) {
  const auto n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const auto weights = torch::softmax(x.reshape({n, c, h * w}), -1).reshape({n, c, h, w});
  const auto ys = torch::linspace(-1, 1, h, x.options()).view({1, 1, h, 1});
  const auto xs = torch::linspace(-1, 1, w, x.options()).view({1, 1, 1, w});
  return torch::cat({(weights * xs).sum({2, 3}), (weights * ys).sum({2, 3})}, 1);
}

// The first convolution's stride: 4 from 64 pixels up, 2 below, so that 32x32 and 64x64 images
// both give a first map 16 across (the 16x16 images of tests give 8).
int64_t first_conv_stride(int64_t height) { return height >= 64 ? 4 : 2; }

}  // namespace

VlaPolicy::VlaPolicy(const envs::EnvSpec& spec, const VlaSize& size, uint64_t seed)
    : spec_(spec), size_(size) {
  const bool images = spec.image_size() > 0;
  const bool words = spec.instruction_length > 0;
  const int64_t language = words ? size.embedding : 0;
  if (words) {
    embedding_ = register_module(
        "embedding",
        torch::nn::Embedding(
            torch::nn::EmbeddingOptions(spec.vocabulary_size, size.embedding).padding_idx(0)));
    transformer_ = register_module("transformer", torch::nn::ModuleList());
    for (int64_t l = 0; l < size.transformer_layers; ++l)
      transformer_->push_back(torch::nn::TransformerEncoderLayer(
          torch::nn::TransformerEncoderLayerOptions(size.embedding, 4)
              .dim_feedforward(2 * size.embedding)
              .dropout(0.0)));
  }
  int64_t keypoints = 0;
  if (images) {
    convs_ = register_module("convs", torch::nn::ModuleList());
    films_ = register_module("films", torch::nn::ModuleList());
    int64_t in = 3;
    const int64_t first_stride = first_conv_stride(spec.image_shape[1]);
    for (size_t l = 0; l < size.conv_channels.size(); ++l) {
      const int64_t out = size.conv_channels[l];
      // The first layer brings the image to 16x16 (8x8 stride 4 at 64x64; a stride-2 first layer
      // there measured 15-20x slower to train on CPU), then 3x3 stride 2 and 3x3 stride 1: the
      // keypoints come from an 8x8 map. (From a 4x4 map, 32x32 images cloned 300 lift
      // demonstrations to 8.7% success, against 60% at 64x64.)
      const int64_t stride = l == 0 ? first_stride : l == 1 ? 2 : 1;
      const int64_t k = l == 0 ? std::max<int64_t>(3, 2 * stride) : 3;
      convs_->push_back(torch::nn::Conv2d(
          torch::nn::Conv2dOptions(in, out, k).stride(stride).padding((k - stride + 1) / 2)));
      // FiLM: the instruction scales and shifts every channel of every layer.
      if (words) films_->push_back(torch::nn::Linear(language, 2 * out));
      in = out;
    }
    keypoints = 2 * in * spec.image_shape[0];
  }
  torch::nn::Sequential trunk;
  int64_t width = spec.observation_size() + language + keypoints;
  for (int64_t l = 0; l < size.trunk_layers; ++l) {
    trunk->push_back(torch::nn::Linear(width, size.trunk));
    trunk->push_back(torch::nn::ReLU());
    width = size.trunk;
  }
  trunk_ = register_module("trunk", trunk);
  const int64_t head = spec.action.is_discrete() ? spec.action.choices : spec.action.dim;
  mean_ = register_module("mean", torch::nn::Linear(width, head));
  value_ = register_module("value", torch::nn::Linear(width, 1));
  if (!spec.action.is_discrete()) log_std_ = register_parameter("log_std", torch::zeros({head}));
  initialise(*this, seed);
  torch::NoGradGuard no_grad;
  if (log_std_.defined()) log_std_.fill_(-0.5);
  mean_->weight.mul_(0.01);  // a calm first policy: actions near zero
}

torch::Tensor VlaPolicy::instruction(const torch::Tensor& tokens) {
  const auto pad = tokens.eq(0);         // [N, L]
  auto x = embedding_->forward(tokens);  // [N, L, E]
  if (!transformer_->is_empty()) {
    x = x.transpose(0, 1);  // the transformer layers take [L, N, E]
    for (auto& layer : *transformer_)
      x = layer->as<torch::nn::TransformerEncoderLayer>()->forward(x, {}, pad);
    x = x.transpose(0, 1);
  }
  const auto keep = (~pad).to(x.dtype()).unsqueeze(-1);
  return (x * keep).sum(1) / keep.sum(1).clamp_min(1.0);
}

torch::Tensor VlaPolicy::see(const torch::Tensor& images, const torch::Tensor& language) {
  const auto n = images.size(0), cameras = images.size(1);
  // [N, C, H, W, 3] bytes -> [N * C, 3, H, W] in [0, 1]
  auto x = images.flatten(0, 1).permute({0, 3, 1, 2}).to(torch::kFloat).div(255.0);
  for (size_t l = 0; l < convs_->size(); ++l) {
    x = convs_[l]->as<torch::nn::Conv2d>()->forward(x);
    if (language.defined()) {
      const auto film = films_[l]->as<torch::nn::Linear>()->forward(language);  // [N, 2 out]
      const auto out = x.size(1);
      const auto scale = (1 + film.slice(1, 0, out)).repeat_interleave(cameras, 0);
      const auto shift = film.slice(1, out, 2 * out).repeat_interleave(cameras, 0);
      x = x * scale.view({n * cameras, out, 1, 1}) + shift.view({n * cameras, out, 1, 1});
    }
    x = torch::relu(x);
  }
  return spatial_softmax(x).view({n, -1});
}

torch::Tensor VlaPolicy::features(const PolicyInput& input) {
  std::vector<torch::Tensor> parts{input.state.flatten(1)};
  torch::Tensor language;
  if (embedding_) {
    language = instruction(input.tokens);
    parts.push_back(language);
  }
  if (convs_) parts.push_back(see(input.images, language));
  return trunk_->forward(torch::cat(parts, 1));
}

torch::Tensor VlaPolicy::log_std() const {
  // Bounded: behaviour cloning would otherwise shrink the spread of always-zero action dimensions
  // (roll, pitch) without limit, and RL needs some exploration left.
  return log_std_.defined() ? log_std_.clamp(min_log_std, max_log_std) : log_std_;
}

PolicyActions VlaPolicy::act(const PolicyInput& input, bool deterministic,
                             at::Generator& generator) {
  torch::NoGradGuard no_grad;
  const auto f = features(input);
  const ActionDistribution d(spec_.action, mean_->forward(f), log_std());
  auto actions = deterministic ? d.mode() : d.sample(generator);
  return {actions, d.log_prob(actions), value_->forward(f).squeeze(-1)};
}

PolicyEvaluation VlaPolicy::evaluate(const PolicyInput& input, const torch::Tensor& actions) {
  const auto f = features(input);
  const ActionDistribution d(spec_.action, mean_->forward(f), log_std());
  return {d.log_prob(actions), d.entropy(), value_->forward(f).squeeze(-1)};
}

torch::Tensor VlaPolicy::value(const PolicyInput& input) {
  return value_->forward(features(input)).squeeze(-1);
}

}  // namespace dvla
