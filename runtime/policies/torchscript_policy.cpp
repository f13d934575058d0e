#include <dvla/runtime/policies/torchscript_policy.hpp>

#include <torch/script.h>

#include <sstream>

#include <dvla/messages/tensor_ref.hpp>
#include <dvla/runtime/policies/action_distribution.hpp>

namespace dvla {
namespace {

std::string shape(const at::Tensor& t) { return msg::shape_string(t.sizes().vec()); }

// The first line of a LibTorch error: the rest is a C++ or TorchScript backtrace.
std::string first_line(const std::exception& e) {
  std::string text = e.what();
  return text.substr(0, text.find('\n'));
}

struct Heads {
  at::Tensor params;   // mean or logits
  at::Tensor log_std;  // continuous only
  at::Tensor value;    // [N]
};

class TorchScriptPolicy final : public Policy {
 public:
  TorchScriptPolicy(torch::jit::Module module, const envs::EnvSpec& spec)
      : module_(std::move(module)), spec_(spec) {
    // The same tensors as the module's, so the flat buffer re-homes the module's parameters.
    for (const auto& p : module_.named_parameters(/*recurse=*/true)) {
      std::string name = p.name;
      for (auto& c : name)
        if (c == '.') c = '_';
      register_parameter(name, p.value, /*requires_grad=*/true);
    }
  }

  // The contract's checks, on the outputs for an input of `n` rows; empty when they fit.
  std::string mismatch(const c10::IValue& out, int64_t n) const {
    const bool discrete = spec_.action.is_discrete();
    const size_t expected = discrete ? 2 : 3;
    const std::string contract =
        discrete ? "(logits [N, " + std::to_string(spec_.action.choices) + "], value [N])"
                 : "(mean [N, " + std::to_string(spec_.action.dim) + "], log_std [" +
                       std::to_string(spec_.action.dim) + "] or [N, " +
                       std::to_string(spec_.action.dim) + "], value [N])";
    if (!out.isTuple()) return "forward must return a tuple " + contract;
    const auto& items = out.toTupleRef().elements();
    if (items.size() != expected)
      return "forward returned " + std::to_string(items.size()) + " values, the contract is " +
             contract;
    for (size_t i = 0; i < items.size(); ++i)
      if (!items[i].isTensor()) return "forward's output " + std::to_string(i) + " is not a tensor";
    const auto width = discrete ? spec_.action.choices : spec_.action.dim;
    const auto params = items[0].toTensor();
    const auto what = std::string(discrete ? "logits" : "mean");
    if (params.dim() != 2 || params.size(0) != n || params.size(1) != width)
      return what + " of shape " + shape(params) + ", expected " + msg::shape_string({n, width});
    if (!discrete) {
      const auto log_std = items[1].toTensor();
      const bool per_dim = log_std.dim() == 1 && log_std.size(0) == width;
      const bool per_row = log_std.dim() == 2 && log_std.size(0) == n && log_std.size(1) == width;
      if (!per_dim && !per_row)
        return "log_std of shape " + shape(log_std) + ", expected " + msg::shape_string({width}) +
               " or " + msg::shape_string({n, width});
    }
    const auto value = items.back().toTensor();
    if (value.numel() != n || (value.dim() != 1 && !(value.dim() == 2 && value.size(1) == 1)))
      return "value of shape " + shape(value) + ", expected " + msg::shape_string({n});
    for (const auto& item : items)
      if (item.toTensor().scalar_type() != at::kFloat)
        return "an output of type " + std::string(c10::toString(item.toTensor().scalar_type())) +
               ", expected float32";
    return {};
  }

  c10::IValue call(const PolicyInput& in) {
    const int64_t n = in.size();
    auto images = in.images.defined() ? in.images : at::empty({n, 0}, at::kByte);
    auto tokens = in.tokens.defined() ? in.tokens : at::empty({n, 0}, at::kLong);
    return module_.forward({in.state, images, tokens});
  }

  Heads heads(const PolicyInput& in) {
    const auto out = call(in);
    if (auto m = mismatch(out, in.size()); !m.empty())
      throw std::runtime_error("TorchScript policy: " + m);
    const auto& items = out.toTupleRef().elements();
    Heads h;
    h.params = items[0].toTensor();
    if (!spec_.action.is_discrete()) h.log_std = items[1].toTensor();
    h.value = items.back().toTensor().reshape({in.size()});
    return h;
  }

  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override {
    torch::NoGradGuard no_grad;
    const auto h = heads(input);
    const ActionDistribution d(spec_.action, h.params, h.log_std);
    PolicyActions a;
    a.actions = deterministic ? d.mode() : d.sample(generator);
    a.log_probs = d.log_prob(a.actions);
    a.values = h.value;
    return a;
  }

  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override {
    const auto h = heads(input);
    const ActionDistribution d(spec_.action, h.params, h.log_std);
    return {d.log_prob(actions), d.entropy(), h.value};
  }

  torch::Tensor value(const PolicyInput& input) override { return heads(input).value; }

 private:
  torch::jit::Module module_;
  envs::EnvSpec spec_;
};

// Two rows of zeros shaped like the env's observations.
PolicyInput probe(const envs::EnvSpec& spec) {
  std::vector<int64_t> state{2};
  state.insert(state.end(), spec.observation_shape.begin(), spec.observation_shape.end());
  PolicyInput in{at::zeros(state), {}, {}};
  if (spec.image_size() > 0) {
    std::vector<int64_t> images{2};
    images.insert(images.end(), spec.image_shape.begin(), spec.image_shape.end());
    in.images = at::zeros(images, at::kByte);
  }
  if (spec.instruction_length > 0) in.tokens = at::zeros({2, spec.instruction_length}, at::kLong);
  return in;
}

}  // namespace

Expected<std::shared_ptr<Policy>> load_torchscript_policy(const std::string& path,
                                                          const envs::EnvSpec& spec) {
  const std::string where = "TorchScript policy '" + path + "'";
  torch::jit::Module module;
  try {
    module = torch::jit::load(path);
  } catch (const std::exception& e) {
    return Error(where + ": cannot load: " + first_line(e));
  }
  if (!module.find_method("forward")) return Error(where + ": has no forward method");
  auto policy = std::make_shared<TorchScriptPolicy>(std::move(module), spec);
  c10::IValue out;
  try {
    torch::NoGradGuard no_grad;
    out = policy->call(probe(spec));
  } catch (const std::exception& e) {
    return Error(where +
                 ": forward(state, images, tokens) failed on a probe batch: " + first_line(e));
  }
  if (auto m = policy->mismatch(out, 2); !m.empty()) return Error(where + ": " + m);
  if (policy->parameters().empty()) return Error(where + ": has no parameters to train");
  return std::shared_ptr<Policy>(policy);
}

}  // namespace dvla
