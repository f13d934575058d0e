#include <dvla/runtime/policies/policy_input.hpp>

#include <ATen/ATen.h>

#include <dvla/runtime/trajectories/env_observations.hpp>

namespace dvla {
namespace {

std::vector<int64_t> flattened(const std::vector<int64_t>& shape, size_t lead) {
  int64_t rows = 1;
  for (size_t d = 0; d < lead; ++d) rows *= shape[d];
  std::vector<int64_t> out{rows};
  out.insert(out.end(), shape.begin() + static_cast<long>(lead), shape.end());
  return out;
}

template <class T>
at::Tensor view(const T* data, const std::vector<int64_t>& shape, at::ScalarType type) {
  return at::from_blob(const_cast<T*>(data), shape, type);
}

}  // namespace

PolicyInput PolicyInput::index_select(const at::Tensor& rows) const {
  PolicyInput p;
  p.state = state.index_select(0, rows);
  if (images.defined()) p.images = images.index_select(0, rows);
  if (tokens.defined()) p.tokens = tokens.index_select(0, rows);
  return p;
}

PolicyInput PolicyInput::to(const at::Device& device) const {
  auto move = [&](const at::Tensor& t) { return t.defined() ? t.to(device) : t; };
  return {move(state), move(images), move(tokens)};
}

at::Device device_of(const torch::nn::Module& module) {
  const auto parameters = module.parameters(/*recurse=*/true);
  return parameters.empty() ? at::Device(at::kCPU) : parameters.front().device();
}

PolicyInput PolicyInput::slice(int64_t begin, int64_t end) const {
  PolicyInput p;
  p.state = state.slice(0, begin, end);
  if (images.defined()) p.images = images.slice(0, begin, end);
  if (tokens.defined()) p.tokens = tokens.slice(0, begin, end);
  return p;
}

PolicyInput policy_input(const msg::Observations& o, size_t lead) {
  PolicyInput p;
  p.state = view(o.state.data, flattened(o.state.shape, lead), at::kFloat);
  if (o.has_images()) p.images = view(o.images.data, flattened(o.images.shape, lead), at::kByte);
  if (o.has_instructions())
    p.tokens =
        view(o.instructions.data, flattened(o.instructions.shape, lead), at::kInt).to(at::kLong);
  return p;
}

PolicyInput policy_input(const envs::BatchOutput& out, const envs::EnvSpec& spec) {
  return policy_input(observations_of(out, spec), 1);
}

PolicyInput concatenate(const std::vector<PolicyInput>& parts) {
  std::vector<at::Tensor> state, images, tokens;
  for (const auto& p : parts) {
    state.push_back(p.state);
    if (p.images.defined()) images.push_back(p.images);
    if (p.tokens.defined()) tokens.push_back(p.tokens);
  }
  PolicyInput out;
  out.state = at::cat(state);
  if (!images.empty()) out.images = at::cat(images);
  if (!tokens.empty()) out.tokens = at::cat(tokens);
  return out;
}

}  // namespace dvla
