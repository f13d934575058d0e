// A learner algorithm of your own, registered by name and trained through dvla's actor graph.
//
// Lights: one of `lamps` lamps is lit, at random, at every step; pressing the switch of the lit
// one pays 1, any other costs 0.1; an episode is 16 presses. The algorithm: PPO's update with
// one-step temporal-difference advantages, r + gamma V(s') - V(s) (GAE's lambda = 0, written
// out), instead of GAE. Built out of tree against the installed package (examples/
// CMakeLists.txt); run: ./custom_learner
#include <fmt/core.h>

#include <memory>
#include <random>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/envs/env_batch.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/learners/learner_algorithm.hpp>

namespace {

constexpr int lamps = 5;

class Lights final : public dvla::envs::Env {
 public:
  explicit Lights(int lamps) : lamps_(lamps) {
    spec_.name = "lights";
    spec_.observation_shape = {lamps};
    spec_.action.type = dvla::envs::ActionSpace::Type::discrete;
    spec_.action.choices = lamps;
    spec_.max_episode_steps = 16;
  }
  const dvla::envs::EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t seed, float* observation) override {
    rng_.seed(seed);
    light(observation);
  }
  dvla::envs::StepResult step(const float* action, float* observation) override {
    const bool right = static_cast<int>(action[0]) == lit_;
    light(observation);
    return {right ? 1.f : -0.1f, false, false};
  }

 private:
  void light(float* o) {
    lit_ = static_cast<int>(rng_() % static_cast<uint64_t>(lamps_));
    for (int i = 0; i < lamps_; ++i) o[i] = i == lit_ ? 1.f : 0.f;
  }
  int lamps_;
  int lit_ = 0;
  std::mt19937_64 rng_;
  dvla::envs::EnvSpec spec_;
};

// The algorithm: what turns admitted segments into an update's batch. Everything else (how the
// samplers collect, the clipped objective) keeps dvla's defaults.
class TemporalDifference final : public dvla::LearnerAlgorithm {
 public:
  explicit TemporalDifference(float gamma) : gamma_(gamma) {}

  dvla::TrainingBatch make_batch(const std::vector<dvla::msg::TrajectorySegment>& segments,
                                 dvla::Policy& policy, uint64_t learner_version) override {
    return dvla::make_training_batch(
        segments, policy, learner_version,
        [this](const dvla::msg::TrajectorySegment& s, const std::vector<float>& truncated_values) {
          return one_step(s, truncated_values);
        });
  }

 private:
  // Per step t of env e (row t * envs + e): r + gamma V(next) - V, where V(next) is 0 after a
  // terminal step, the critic's value of the last observation after a truncated one, the next
  // row's behaviour value inside the segment and the bootstrap value after it.
  std::vector<float> one_step(const dvla::msg::TrajectorySegment& s,
                              const std::vector<float>& truncated_values) const {
    const int64_t steps = s.steps(), envs = s.envs();
    std::vector<float> advantages(static_cast<size_t>(steps * envs));
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t e = 0; e < envs; ++e) {
        const int64_t i = t * envs + e;
        float next = t + 1 < steps ? s.values.data[i + envs] : s.bootstrap_values.data[e];
        if (s.terminated.data[i]) next = 0;
        if (s.truncated.data[i]) next = truncated_values[static_cast<size_t>(i)];
        advantages[static_cast<size_t>(i)] = s.rewards.data[i] + gamma_ * next - s.values.data[i];
      }
    return advantages;
  }

  float gamma_;
};

}  // namespace

int main() {
  dvla::Config config;
  config.run.max_env_steps = 40'000;
  config.run.algo = "td0";  // the name registered below; --algo on dvla's own apps

  auto parts = dvla::default_graph_parts(config);
  parts.env_spec = [] { return Lights(lamps).spec(); };
  parts.make_env = [](uint32_t, size_t envs) {
    return std::make_unique<dvla::envs::EnvBatch>([] { return std::make_unique<Lights>(lamps); },
                                                  envs);
  };
  auto graph = dvla::graph_of(config, parts);
  auto registered = graph.learners.add("td0", [](const dvla::Config& c) {
    return std::make_unique<TemporalDifference>(static_cast<float>(c.ppo.gamma));
  });
  if (!registered) {
    fmt::print(stderr, "{}\n", registered.error().message());
    return 1;
  }

  auto result = dvla::train(config, graph, [](const dvla::RunStatus& s) {
    fmt::print("env steps {:>7} | mean return {:6.2f} | version {}\n", s.env_steps, s.mean_return,
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
  // 16 presses: 16 is perfect, a random policy expects 16 (0.2 - 0.08) = 1.9.
  fmt::print("evaluation: mean return {:.2f} of 16\n", eval->mean_return);
  return eval->mean_return > 14 ? 0 : 1;
}
