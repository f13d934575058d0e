// Continuous control with the defaults: actions clipped at the env, observations normalised by
// statistics that travel with the weights (so evaluation acts with the learner's), rewards scaled
// by the return's running std; both kinds of state go into checkpoints and resume from them; and
// Pendulum and InvertedPendulum learn within a CI budget.
#include "doctest_with_torch.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>
#include "best_evaluation.hpp"

using namespace dvla;
namespace fs = std::filesystem;

namespace {

// A policy built by `parts` holding `weights`, and the FlatParameters that hold them.
struct LoadedPolicy {
  std::shared_ptr<Policy> policy;
  std::unique_ptr<FlatParameters> flat;
};

LoadedPolicy load(const GraphParts& parts, const msg::WeightsFrame& weights) {
  LoadedPolicy l{parts.make_policy(parts.env_spec()), nullptr};
  l.flat = std::make_unique<FlatParameters>(*l.policy);
  auto update = msg::read(weights);
  REQUIRE(update);
  REQUIRE(l.flat->load(*update));
  return l;
}

double parameter(Policy& policy, const std::string& name) {
  auto* p = policy.named_parameters().find(name);
  REQUIRE_MESSAGE(p != nullptr, name);
  return p->item<double>();
}

double reward_count(const Checkpoint& c) {
  return nlohmann::json::parse(c.state.algorithm_state).at("return_count").get<double>();
}

// A run of the defaults on `env` for `steps` env steps from `seed`, the evaluation of its final
// weights on `episodes` episodes and, with `eval_every`, the best of its evaluations during the
// run and of the final one.
struct Learned {
  Config config;
  GraphParts parts;
  TrainingResult result;
  double mean_return = 0;
  double best_return = 0;
};

Learned learn(const std::string& env, uint64_t steps, uint64_t seed, int episodes,
              int eval_every = 0) {
  Learned l;
  l.config.env.name = env;
  l.config.run.seed = seed;
  l.config.run.max_env_steps = steps;
  l.config.run.eval_episodes = episodes;
  l.config.run.eval_every = eval_every;
  l.parts = default_graph_parts(l.config);
  auto graph = graph_of(l.config, l.parts);
  auto best = std::make_shared<std::atomic<double>>(-1e30);
  observe_best_evaluation(graph, best);
  auto result = train(l.config, graph);
  REQUIRE_MESSAGE(result, result.error().message());
  l.result = std::move(*result);
  auto eval = evaluate_weights(l.parts, l.config, l.result.weights);
  REQUIRE(eval);
  l.mean_return = eval->mean_return;
  l.best_return = std::max(eval->mean_return, best->load());
  MESSAGE(env, ": evaluation ", l.mean_return, " (best ", l.best_return, ") after ",
          l.result.status.env_steps, " env steps");
  return l;
}

// The policy's observation statistics back at their starting point (mean 0, variance 1).
void forget_statistics(Policy& policy) {
  torch::NoGradGuard no_grad;
  for (auto& p : policy.named_parameters()) {
    if (p.key() == "observation_normalizer.mean") p.value().zero_();
    if (p.key() == "observation_normalizer.variance") p.value().fill_(1.0);
  }
}

}  // namespace

TEST_CASE("observation statistics and the reward scale are checkpointed and resumed from") {
  const std::string dir = "test_continuous_control_resume";
  fs::remove_all(dir);
  Config c;
  c.env.name = "pendulum";
  c.run.seed = 3;
  c.run.max_env_steps = 8192;
  c.run.logdir = dir;
  c.run.eval_episodes = 2;
  const auto parts = default_graph_parts(c);
  auto first = train(c, parts);
  REQUIRE_MESSAGE(first, first.error().message());
  auto saved = load_checkpoint(first->checkpoint);
  REQUIRE_MESSAGE(saved, saved.error().message());
  const double trained = static_cast<double>(saved->state.samples_trained);
  REQUIRE(trained >= 4096);
  // Every sample trained on went into the statistics the checkpoint's weights carry, and into the
  // reward scale its state holds.
  auto loaded = load(parts, saved->weights);
  CHECK(parameter(*loaded.policy, "observation_normalizer.count") == doctest::Approx(trained));
  CHECK(reward_count(*saved) == doctest::Approx(trained));
  // Pendulum's returns are hundreds: the scale is far from its starting 1.
  CHECK(nlohmann::json::parse(saved->state.algorithm_state).at("return_variance").get<double>() >
        100.0);

  // Resumed, both go on from the checkpoint's rather than starting again.
  c.run.max_env_steps = 16384;
  auto resumed = train(c, parts, {}, std::make_shared<const Checkpoint>(*saved));
  REQUIRE_MESSAGE(resumed, resumed.error().message());
  auto later = load_checkpoint(resumed->checkpoint);
  REQUIRE(later);
  const double all = static_cast<double>(later->state.samples_trained);
  REQUIRE(all > trained + 2048);
  auto continued = load(parts, later->weights);
  CHECK(parameter(*continued.policy, "observation_normalizer.count") == doctest::Approx(all));
  CHECK(reward_count(*later) == doctest::Approx(all));
  fs::remove_all(dir);
}

TEST_CASE("InvertedPendulum learns with the defaults; evaluation uses the learner's statistics") {
  const auto l = learn("inverted_pendulum", 150'000, 1, 10);
  // Without its observation statistics the same weights see other inputs than they learned on.
  auto loaded = load(l.parts, l.result.weights);
  forget_statistics(*loaded.policy);
  auto env = l.parts.make_env(0, static_cast<size_t>(l.config.run.eval_episodes));
  const auto blind = evaluate_policy(*loaded.policy, *env, l.config.run.seed);
  MESSAGE("without its statistics: ", blind.mean_return);
  CHECK(l.mean_return >= 500.0);  // random: about 5; the limit: 1000
  CHECK(blind.mean_return < 0.5 * l.mean_return);
}

TEST_CASE("Pendulum swings up with the defaults") {
  // Judged by the best of its evaluations (every 25 versions) and its final weights: async runs
  // are not reproducible, and of 40 measured at 300k env steps (seeds 1-40) every one's best was
  // -242 or better, 37 ended above -300, three at -318, -320 and -540 (docs/results.md).
  const auto l = learn("pendulum", 300'000, 1, 20, 25);
  CHECK(l.best_return >= -500.0);  // random: about -1200; swung up and held: -120 to -200
}
