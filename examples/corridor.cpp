// A user-composed graph: bring your own environment, keep dvla's actors and learner.
//
// Corridor: the agent starts in the middle of a corridor of `length` cells and must walk to the
// goal at the right end; stepping left or right costs a little, reaching the goal pays 1.
// Built out of tree against the installed package (examples/CMakeLists.txt); run: ./corridor
#include <fmt/core.h>

#include <random>

#include <dvla/actors/graph/training.hpp>
#include <dvla/envs/env_batch.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>

namespace {

class Corridor final : public dvla::envs::Env {
 public:
  explicit Corridor(int length) : length_(length) {
    spec_.name = "corridor";
    spec_.observation_shape = {2};
    spec_.action.type = dvla::envs::ActionSpace::Type::discrete;
    spec_.action.choices = 2;  // 0: left, 1: right
    spec_.max_episode_steps = 4 * length;
  }
  const dvla::envs::EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t seed, float* observation) override {
    std::mt19937_64 rng(seed);
    position_ = length_ / 2 + static_cast<int>(rng() % 3) - 1;
    observe(observation);
  }
  dvla::envs::StepResult step(const float* action, float* observation) override {
    position_ = std::max(0, position_ + (action[0] >= 0.5f ? 1 : -1));
    observe(observation);
    const bool goal = position_ >= length_ - 1;
    return {goal ? 1.f : -0.01f, goal, goal};
  }

 private:
  void observe(float* o) const {
    o[0] = static_cast<float>(position_) / static_cast<float>(length_);
    o[1] = position_ == 0 ? 1.f : 0.f;  // touching the left wall
  }
  int length_;
  int position_ = 0;
  dvla::envs::EnvSpec spec_;
};

}  // namespace

int main() {
  dvla::Config config;
  config.run.max_env_steps = 60'000;
  config.graph.samplers = 2;
  config.graph.envs_per_sampler = 8;

  // Start from the built-in parts (MLP actor-critic) and swap in the environment.
  auto parts = dvla::default_graph_parts(config);
  const int length = 12;
  auto make_corridor = [length] { return std::make_unique<Corridor>(length); };
  parts.env_spec = [length] { return Corridor(length).spec(); };
  parts.make_env = [make_corridor](uint32_t, size_t envs) {
    return std::make_unique<dvla::envs::EnvBatch>(make_corridor, envs);
  };

  auto result = dvla::train(config, parts, [](const dvla::RunStatus& s) {
    fmt::print("env steps {:>7} | mean return {:6.3f} | version {}\n", s.env_steps, s.mean_return,
               s.version);
  });
  if (!result) {
    fmt::print(stderr, "training failed: {}\n", result.error().message());
    return 1;
  }
  auto eval = dvla::evaluate_weights(parts, config, result->weights);
  if (!eval) {
    fmt::print(stderr, "{}\n", eval.error().message());
    return 1;
  }
  fmt::print("evaluation: success rate {:.2f}, mean length {:.1f} steps (optimal: about {})\n",
             eval->success_rate, eval->mean_length, length / 2);
  return eval->success_rate > 0.9 ? 0 : 1;
}
