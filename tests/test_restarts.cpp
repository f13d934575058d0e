// Supervision with restarts: a sampler whose env throws, an inference replica whose forward pass
// throws and an evaluator that fails are restarted (fault.max_restarts within fault.window_s) and
// the run reaches its budget with every env step counted once; a failure past the budget ends the
// run naming the actor.
#include "doctest_with_torch.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/run/restart_budget.hpp>

using namespace dvla;

namespace {

// An env batch that counts the env steps it takes and calls `before_step` first (which may throw,
// as a simulator does when it goes unstable).
struct FaultyEnv final : envs::BatchedEnv {
  std::unique_ptr<envs::BatchedEnv> env;
  std::function<void()> before_step;
  std::shared_ptr<std::atomic<uint64_t>> stepped;
  const envs::EnvSpec& spec() const override { return env->spec(); }
  size_t size() const override { return env->size(); }
  void reset(const std::vector<uint64_t>& seeds) override { env->reset(seeds); }
  void step(const float* actions) override {
    if (before_step) before_step();
    env->step(actions);
    *stepped += env->size();
  }
  const envs::BatchOutput& output() const override { return env->output(); }
};

// A policy that acts like `inner` but calls `before_act` before each sampled (not deterministic)
// batch of actions: an inference replica's forward pass that fails.
struct FaultyPolicy final : Policy {
  std::shared_ptr<Policy> inner;
  std::function<void()> before_act;
  FaultyPolicy(std::shared_ptr<Policy> p, std::function<void()> f)
      : inner(register_module("inner", std::move(p))), before_act(std::move(f)) {}
  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override {
    if (!deterministic && before_act) before_act();
    return inner->act(input, deterministic, generator);
  }
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override {
    return inner->evaluate(input, actions);
  }
  torch::Tensor value(const PolicyInput& input) override { return inner->value(input); }
};

using EnvFactory = std::function<std::unique_ptr<envs::BatchedEnv>(uint32_t, size_t)>;

// `base`'s envs, counting their steps into `stepped`; sampler `faulty`'s envs throw at their
// `at_step`-th step, in the sampler's first `lives` lives.
EnvFactory unstable_sampler(EnvFactory base, uint32_t faulty, int at_step, int lives,
                            std::shared_ptr<std::atomic<uint64_t>> stepped) {
  auto failures = std::make_shared<std::atomic<int>>(0);
  return [=](uint32_t sampler, size_t envs) -> std::unique_ptr<envs::BatchedEnv> {
    auto env = std::make_unique<FaultyEnv>();
    env->env = base(sampler, envs);
    env->stepped = stepped;
    if (sampler == faulty)
      env->before_step = [failures, at_step, lives, steps = 0]() mutable {
        if (++steps == at_step && failures->fetch_add(1) < lives)
          throw std::runtime_error("the simulator went unstable");
      };
    return env;
  };
}

Config small_cartpole() {
  Config config;
  config.run.seed = 3;
  config.run.max_env_steps = 24'000;
  config.run.eval_episodes = 5;
  config.graph.samplers = 2;
  config.graph.envs_per_sampler = 8;
  config.graph.segment_length = 32;
  return config;
}

}  // namespace

TEST_CASE("the restart budget allows fault.max_restarts within any fault.window_s") {
  using namespace std::chrono_literals;
  const auto t0 = RestartBudget::Clock::time_point{};
  RestartBudget budget(2, 10.0);
  CHECK(budget.allow(t0));
  CHECK(budget.allow(t0 + 1s));
  CHECK_FALSE(budget.allow(t0 + 2s));  // a third within 10 s
  CHECK(budget.allow(t0 + 10s));       // the first left the window
  CHECK_FALSE(budget.allow(t0 + 10500ms));
  CHECK(budget.total() == 3);
  RestartBudget none(0, 10.0);
  CHECK_FALSE(none.allow(t0));
}

TEST_CASE("a sampler whose env throws is restarted and the run ends on its budget, steps once") {
  auto config = small_cartpole();
  auto parts = default_graph_parts(config);
  auto stepped = std::make_shared<std::atomic<uint64_t>>(0);
  // Sampler 1's envs throw at their 150th step, in its first two lives; sampler 0's never do.
  parts.make_env = unstable_sampler(parts.make_env, 1, 150, 2, stepped);
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.restarts == 2);
  CHECK(s.last_restart == "actor_failed: sampler/1: the simulator went unstable");
  // The budget is reached, and not overshot: steps of an earlier life count toward it.
  CHECK(s.env_steps >= config.run.max_env_steps);
  CHECK(s.env_steps < config.run.max_env_steps + 16);
  CHECK(s.rejected_messages == 0);
  // Every counted step was taken; the steps not counted are at most the failed lives' unshipped
  // segments (each life: its envs x segment_length).
  const uint64_t unshipped_bound = 2 * 8 * 32;
  CHECK(*stepped >= s.env_steps);
  CHECK(*stepped - s.env_steps <= unshipped_bound);
  CHECK(s.version > 3);
}

TEST_CASE("GRPO: a sampler that fails mid-group is restarted with fresh groups") {
  auto config = small_cartpole();
  config.run.algo = "grpo";
  config.grpo.reward = EpisodeScore::episode_return;
  auto parts = default_graph_parts(config);
  parts.make_env =
      unstable_sampler(parts.make_env, 0, 120, 1, std::make_shared<std::atomic<uint64_t>>(0));
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.restarts == 1);
  CHECK(s.last_restart == "actor_failed: sampler/0: the simulator went unstable");
  CHECK(s.env_steps >= config.run.max_env_steps);  // valid steps only: whole rounds overshoot
  CHECK(s.rejected_messages == 0);
  CHECK(s.version >= 3);
}

TEST_CASE("an inference replica whose forward pass throws is restarted; its samplers go on") {
  auto config = small_cartpole();
  auto parts = default_graph_parts(config);
  const auto base = parts.make_policy;
  auto acts = std::make_shared<std::atomic<int>>(0);
  // The 100th and 400th sampled batches of actions throw (two replica failures).
  parts.make_policy = [=](const envs::EnvSpec& spec) -> std::shared_ptr<Policy> {
    return std::make_shared<FaultyPolicy>(base(spec), [acts] {
      const int n = ++*acts;
      if (n == 100 || n == 400) throw std::runtime_error("CUDA error: an illegal memory access");
    });
  };
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.restarts == 2);
  CHECK(s.last_restart == "actor_failed: inference/0: CUDA error: an illegal memory access");
  CHECK(s.env_steps >= config.run.max_env_steps);
  CHECK(s.env_steps < config.run.max_env_steps + 16);
  CHECK(s.version > 3);
}

TEST_CASE("an evaluator that fails is restarted and the evaluation runs again") {
  auto config = small_cartpole();
  auto parts = default_graph_parts(config);
  const auto base = parts.make_env;
  auto evaluator_envs = std::make_shared<std::atomic<int>>(0);
  // The evaluator builds its env with the index after the samplers'; the first one it builds
  // throws.
  parts.make_env = [=](uint32_t index, size_t envs) -> std::unique_ptr<envs::BatchedEnv> {
    if (index == 2 && evaluator_envs->fetch_add(1) == 0)
      throw std::runtime_error("the renderer lost its context");
    return base(index, envs);
  };
  config.run.eval_every = 5;
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.restarts == 1);
  CHECK(s.last_restart.find("evaluator") != std::string::npos);
  CHECK(s.last_restart.find("the renderer lost its context") != std::string::npos);
  CHECK(s.evaluations >= 1);
  CHECK(s.last_evaluation.episodes == 5);
}

TEST_CASE("a failure past fault.max_restarts ends the run naming the actor and the budget") {
  auto config = small_cartpole();
  config.run.max_env_steps = 1'000'000;
  config.fault.max_restarts = 2;
  auto parts = default_graph_parts(config);
  const auto base = parts.make_env;
  auto built = std::make_shared<std::atomic<int>>(0);
  parts.make_env = [=](uint32_t sampler, size_t envs) -> std::unique_ptr<envs::BatchedEnv> {
    if (sampler == 1) {
      ++*built;
      throw std::runtime_error("simulator license expired");
    }
    return base(sampler, envs);
  };
  auto result = train(config, parts);
  REQUIRE_FALSE(result);
  CHECK(result.error().message() ==
        "actor_failed: sampler/1: simulator license expired (it failed more than "
        "fault.max_restarts = 2 times within fault.window_s = 300 s; restarted 2 times in all)");
  CHECK(*built == 3);  // the first life and two restarts
}
