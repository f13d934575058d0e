// Bring-your-own policy as TorchScript: modules built here with torch::jit::Module::define (as a
// Python export would be) load, act, train and share the flat buffer; modules that break the
// contract are refused with the mismatch named.
#include "doctest_with_torch.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/script.h>

#include <filesystem>

#include <dvla/actors/graph/training.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/policies/torchscript_policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

using namespace dvla;

namespace {

// Saves a module with the given parameters and TorchScript source; returns its path.
std::string save_module(const std::string& name,
                        const std::vector<std::pair<std::string, at::Tensor>>& parameters,
                        const std::string& source) {
  torch::jit::Module m(name);
  for (const auto& [key, value] : parameters) m.register_parameter(key, value, false);
  m.define(source);
  const std::string path = "test_torchscript_" + name + ".pt";
  m.save(path);
  return path;
}

// A CartPole actor-critic: one hidden tanh layer, logits and a value.
std::string cartpole_module() {
  auto g = at::make_generator<at::CPUGeneratorImpl>(3);
  return save_module("cartpole",
                     {{"w1", at::randn({4, 64}, g) * 0.5},
                      {"b1", at::zeros({64})},
                      {"wp", at::randn({64, 2}, g) * 0.01},
                      {"wv", at::randn({64, 1}, g) * 0.1}},
                     R"(
def forward(self, state, images, tokens):
    h = torch.tanh(torch.matmul(state, self.w1) + self.b1)
    return torch.matmul(h, self.wp), torch.matmul(h, self.wv).squeeze(1)
)");
}

envs::EnvSpec tabletop_spec() {
  envs::tabletop::TabletopConfig c;
  c.suite = "lift";
  c.image_size = 16;
  return envs::tabletop::env_spec(c);
}

// Continuous 7-D actions from proprioception, image brightness and instruction tokens.
const char* tabletop_source = R"(
def forward(self, state, images, tokens):
    seen = images.float().mean(dim=[1, 2, 3, 4]).unsqueeze(1) / 255.0
    said = tokens.float().mean(dim=1, keepdim=True) / 12.0
    mean = torch.matmul(state, self.w) + seen * self.a + said * self.b
    return mean, self.log_std, torch.matmul(state, self.v).squeeze(1)
)";

std::vector<std::pair<std::string, at::Tensor>> tabletop_parameters() {
  auto g = at::make_generator<at::CPUGeneratorImpl>(4);
  return {{"w", at::randn({10, 7}, g) * 0.1},
          {"a", at::randn({7}, g)},
          {"b", at::randn({7}, g)},
          {"log_std", at::zeros({7})},
          {"v", at::randn({10, 1}, g)}};
}

std::string refusal(const std::string& path, const envs::EnvSpec& spec) {
  auto p = load_torchscript_policy(path, spec);
  REQUIRE_FALSE(p);
  return p.error().message();
}

}  // namespace

TEST_CASE("a TorchScript policy acts, trains its module's parameters and shares the flat buffer") {
  const auto spec = tabletop_spec();
  const auto path = save_module("tabletop", tabletop_parameters(), tabletop_source);
  auto loaded = load_torchscript_policy(path, spec);
  REQUIRE_MESSAGE(loaded, loaded.error().message());
  auto& policy = **loaded;
  PolicyInput input{at::randn({3, 10}), at::randint(0, 255, {3, 1, 16, 16, 3}, at::kByte),
                    at::randint(1, 12, {3, 12}, at::kLong)};
  auto g = at::make_generator<at::CPUGeneratorImpl>(1);
  const auto a = policy.act(input, true, g);
  CHECK(a.actions.sizes() == at::IntArrayRef{3, 7});
  CHECK(a.values.sizes() == at::IntArrayRef{3});
  // The images and tokens reach the module: other pixels, other actions.
  auto brighter = input;
  brighter.images = at::full({3, 1, 16, 16, 3}, 255, at::kByte);
  CHECK_FALSE(at::allclose(policy.act(brighter, true, g).actions, a.actions));

  const auto e = policy.evaluate(input, a.actions);
  (e.log_probs.sum() + e.values.sum()).backward();
  for (const auto& p : policy.parameters()) CHECK(p.grad().defined());

  FlatParameters flat(policy);
  CHECK(flat.size() == 10 * 7 + 7 + 7 + 7 + 10);
  {
    torch::NoGradGuard no_grad;
    flat.flat().zero_();  // the module computes with the flat buffer's values
  }
  CHECK(at::equal(policy.act(input, true, g).actions, at::zeros({3, 7})));
}

TEST_CASE("TorchScript modules that break the contract are refused, naming the mismatch") {
  const auto spec = tabletop_spec();
  const auto params = tabletop_parameters();
  CHECK(refusal("no/such/module.pt", spec).find("cannot load") != std::string::npos);
  auto two = save_module("two", params, R"(
def forward(self, state, images, tokens):
    return torch.matmul(state, self.w), torch.matmul(state, self.v).squeeze(1)
)");
  CHECK(refusal(two, spec).find("forward returned 2 values, the contract is (mean [N, 7], "
                                "log_std [7] or [N, 7], value [N])") != std::string::npos);
  auto narrow = save_module("narrow", params, R"(
def forward(self, state, images, tokens):
    return torch.matmul(state, self.w)[:, 0:5], self.log_std, torch.matmul(state, self.v).squeeze(1)
)");
  CHECK(refusal(narrow, spec).find("mean of shape [2,5], expected [2,7]") != std::string::npos);
  auto bad_value = save_module("bad_value", params, R"(
def forward(self, state, images, tokens):
    return torch.matmul(state, self.w), self.log_std, torch.matmul(state, self.w)
)");
  CHECK(refusal(bad_value, spec).find("value of shape [2,7], expected [2]") != std::string::npos);
  auto arguments = save_module("arguments", params, R"(
def forward(self, state):
    return torch.matmul(state, self.w), self.log_std, torch.matmul(state, self.v).squeeze(1)
)");
  CHECK(refusal(arguments, spec).find("forward(state, images, tokens) failed on a probe batch") !=
        std::string::npos);
  auto not_tuple = save_module("not_tuple", params, R"(
def forward(self, state, images, tokens):
    return torch.matmul(state, self.w)
)");
  CHECK(refusal(not_tuple, spec).find("forward must return a tuple") != std::string::npos);
  // A discrete env wants (logits, value).
  envs::EnvConfig cartpole;
  auto mlp = cartpole_module();
  REQUIRE(load_torchscript_policy(mlp, envs::spec_of(cartpole)));
  CHECK(refusal(mlp, spec).find("forward(state, images, tokens) failed") != std::string::npos);
}

TEST_CASE("the graph trains a TorchScript policy on CartPole") {
  Config config;
  config.run.seed = 11;
  config.run.max_env_steps = 150'000;
  config.model.policy = PolicyKind::torchscript;
  config.model.torchscript = cartpole_module();
  const auto parts = default_graph_parts(config);
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  auto eval = evaluate_weights(parts, config, result->weights);
  REQUIRE(eval);
  MESSAGE("torchscript policy eval mean return ", eval->mean_return);
  // A random policy averages about 22. Async runs vary: seeds 1-12 ended at 182-500, seed 11 at
  // 148-500 over 22 runs, so the bar is well below what a learning run reaches.
  CHECK(eval->mean_return >= 100.0);
}
