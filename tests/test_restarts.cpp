// Supervision with restarts: a sampler whose env throws, an inference replica whose forward pass
// throws and an evaluator that fails are restarted (fault.max_restarts within fault.window_s) and
// the run reaches its budget with every env step counted once; a failure past the budget ends the
// run naming the actor. A trainer that fails ends the run with its last checkpoint whole, or with
// fault.restart_trainer is restarted from it, its versions going on.
#include "doctest_with_torch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>

#include <caf/all.hpp>

#include <filesystem>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/actors/graph/user_actors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/version_announcement.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
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
// batch of actions (an inference replica's forward pass that fails) and `before_evaluate` before
// each evaluation of actions (the learner's gradient step that fails).
struct FaultyPolicy final : Policy {
  std::shared_ptr<Policy> inner;
  std::function<void()> before_act, before_evaluate;
  FaultyPolicy(std::shared_ptr<Policy> p, std::function<void()> act,
               std::function<void()> evaluate = {})
      : inner(register_module("inner", std::move(p))),
        before_act(std::move(act)),
        before_evaluate(std::move(evaluate)) {}
  PolicyActions act(const PolicyInput& input, bool deterministic,
                    at::Generator& generator) override {
    if (!deterministic && before_act) before_act();
    return inner->act(input, deterministic, generator);
  }
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override {
    if (before_evaluate) before_evaluate();
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

using PolicyFactory = std::function<std::shared_ptr<Policy>(const envs::EnvSpec&)>;

// `base`'s policy, whose `at`-th evaluation of actions (counted over every policy it made: only
// the learner's evaluate) throws `what`, once.
PolicyFactory failing_learner(PolicyFactory base, int at, const std::string& what) {
  auto evaluations = std::make_shared<std::atomic<int>>(0);
  return [=](const envs::EnvSpec& spec) -> std::shared_ptr<Policy> {
    return std::make_shared<FaultyPolicy>(base(spec), nullptr, [evaluations, at, what] {
      if (++*evaluations == at) throw std::runtime_error(what);
    });
  };
}

bool starts_with(const std::string& text, const std::string& start) {
  return text.rfind(start, 0) == 0;
}

// The versions the learner announced, in order, and the run's evaluations: version and mean
// return (an observer of the run).
struct Announced {
  std::mutex mutex;
  std::vector<uint64_t> versions;
  std::vector<std::pair<uint64_t, double>> evaluations;
};

void observe_versions(Graph& graph, std::shared_ptr<Announced> announced) {
  add_observer(graph, "versions", [announced](caf::actor_system& system) {
    return system.spawn(
        [announced](actors::observer_actor::pointer) -> actors::observer_actor::behavior_type {
          return {[announced](const msg::VersionFrame& frame) {
                    auto v = msg::read(frame);
                    std::lock_guard lock(announced->mutex);
                    announced->versions.push_back(v ? v->version : ~uint64_t{0});
                  },
                  [announced](const msg::MetricsFrame& frame) {
                    auto m = msg::read(frame);
                    const auto* e = m ? std::get_if<msg::EvaluationReport>(&m->report) : nullptr;
                    std::lock_guard lock(announced->mutex);
                    if (e) announced->evaluations.emplace_back(e->version, e->mean_return);
                  }};
        });
  });
}

// A fresh directory for one test case, removed at the end.
struct Scratch {
  explicit Scratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() /
            ("dvla-" + name + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
};

// `config` with checkpoints every `every` versions into `scratch` and fault.restart_trainer on.
Config restarting_trainer(Config config, const Scratch& scratch, int every) {
  config.run.logdir = scratch.dir.string();
  config.run.checkpoint_every = every;
  config.fault.restart_trainer = true;
  return config;
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
  CHECK(starts_with(s.last_restart, "actor_failed: sampler/1: the simulator went unstable; "
                                     "restarted with fresh envs"));
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
  CHECK(starts_with(s.last_restart, "actor_failed: sampler/0: the simulator went unstable; "));
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
  CHECK(starts_with(s.last_restart,
                    "actor_failed: inference/0: CUDA error: an illegal memory access; "));
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

TEST_CASE("a trainer that fails ends the run naming it; its last checkpoint stays whole") {
  Scratch scratch("trainer-fails");
  auto config = small_cartpole();
  config.run.logdir = scratch.dir.string();
  config.run.checkpoint_every = 2;
  auto parts = default_graph_parts(config);
  // About the 6th update's gradient steps (4 epochs of at least 4 minibatches each).
  parts.make_policy = failing_learner(parts.make_policy, 100, "CUDA error: out of memory");
  auto result = train(config, parts);
  REQUIRE_FALSE(result);
  CHECK(result.error().message() == "actor_failed: trainer: CUDA error: out of memory");
  auto last = CheckpointStore::latest_valid(config.run.logdir);
  REQUIRE_MESSAGE(last, last.error().message());
  CHECK(last->state.version >= 2);
  CHECK(!last->optimizer_path.empty());
}

TEST_CASE("with fault.restart_trainer a failed trainer restarts from the last checkpoint") {
  Scratch scratch("trainer-restarts");
  const auto config = restarting_trainer(small_cartpole(), scratch, 2);
  auto parts = default_graph_parts(config);
  parts.make_policy = failing_learner(parts.make_policy, 100, "CUDA error: out of memory");
  auto graph = graph_of(config, parts);
  auto announced = std::make_shared<Announced>();
  observe_versions(graph, announced);
  auto result = train(config, graph);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.restarts == 1);
  CHECK(starts_with(s.last_restart, "actor_failed: trainer: CUDA error: out of memory; restarted "
                                    "from its last checkpoint " +
                                        config.run.logdir + "/checkpoints/v"));
  CHECK(s.env_steps >= config.run.max_env_steps);
  CHECK(s.env_steps < config.run.max_env_steps + 16);
  CHECK(s.rejected_messages == 0);
  std::lock_guard lock(announced->mutex);
  REQUIRE(!announced->versions.empty());
  // 0, 1, 2, ...: the restarted trainer's first version (the checkpoint's weights) comes after
  // the last one its predecessor announced, so that no number stands for two sets of weights.
  for (size_t i = 0; i < announced->versions.size(); ++i) CHECK(announced->versions[i] == i);
  // Training went on after the restart (the failure comes in about the 5th update).
  CHECK(s.version > 12);
  auto last = CheckpointStore::latest_valid(config.run.logdir);
  REQUIRE_MESSAGE(last, last.error().message());
  CHECK(last->state.version >= s.version);
}

TEST_CASE("a run whose trainer fails halfway is restarted and still learns CartPole") {
  Scratch scratch("trainer-restarts-learns");
  Config cartpole;
  cartpole.run.seed = 7;
  cartpole.run.max_env_steps = 100'000;
  cartpole.run.eval_every = 5;
  const auto config = restarting_trainer(cartpole, scratch, 5);
  auto parts = default_graph_parts(config);
  // The learner's 700th evaluation of actions: some 35 updates into a run of about 95.
  parts.make_policy = failing_learner(parts.make_policy, 700, "CUDA error: out of memory");
  auto graph = graph_of(config, parts);
  auto announced = std::make_shared<Announced>();
  observe_versions(graph, announced);
  auto result = train(config, graph);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.restarts == 1);
  CHECK(s.env_steps >= config.run.max_env_steps);
  auto eval = evaluate_weights(parts, config, result->weights);
  REQUIRE(eval);
  // Learned after the restart: the best evaluation of the run's second half (the restart came
  // before it) or of the final weights. PPO's CartPole curve can dip late; the final weights alone
  // were measured at 187 in a run whose evaluations had reached 500.
  double best = eval->mean_return;
  std::lock_guard lock(announced->mutex);
  for (const auto& [version, mean_return] : announced->evaluations)
    if (version >= s.version / 2) best = std::max(best, mean_return);
  MESSAGE("final evaluation ", eval->mean_return, ", best of the second half ", best, " after ",
          s.env_steps, " env steps, version ", s.version, "; ", s.last_restart);
  CHECK(best >= 195.0);  // a random policy averages about 22
}

TEST_CASE("fault.restart_trainer needs mode async and one process") {
  Config config;
  config.fault.restart_trainer = true;
  CHECK(validate(config));
  config.run.mode = RunMode::sync;
  auto sync = validate(config);
  REQUIRE_FALSE(sync);
  CHECK(sync.error().message().find("fault.restart_trainer needs mode async") !=
        std::string::npos);
}
