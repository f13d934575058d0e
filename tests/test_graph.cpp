// The whole actor graph: it learns CartPole on a CI-sized budget, runs user-composed parts, and a
// failing actor ends the run with an error naming it instead of a hang.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>

#include "actors/training.hpp"
#include "envs/env_config.hpp"
#include "runtime/evaluation.hpp"
#include "runtime/graph_parts.hpp"

using namespace dvla;

TEST_CASE("the actor graph learns CartPole to a mean return of at least 195") {
  Config config;
  config.run.seed = 7;
  config.run.max_env_steps = 80'000;
  int progress_reports = 0;
  config.run.progress_interval_s = 0.5;
  const auto parts = default_graph_parts(config);
  auto result = train(config, parts, [&](const RunStatus&) { ++progress_reports; });
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.env_steps >= config.run.max_env_steps);
  CHECK(s.env_steps < config.run.max_env_steps + 16);  // budgets round up to whole batched steps
  CHECK(s.version > 10);
  CHECK(s.samples_trained > 0);
  CHECK(s.rejected_messages == 0);
  CHECK(progress_reports > 0);
  auto eval = evaluate_weights(parts, config, result->weights);
  REQUIRE(eval);
  MESSAGE("eval mean return ", eval->mean_return, " after ", s.env_steps, " env steps, version ",
          s.version, ", lag ", s.policy_lag_mean);
  CHECK(eval->episodes == 20);
  CHECK(eval->mean_return >= 195.0);
}

TEST_CASE("a user-composed graph: custom env factory, more replicas and samplers") {
  Config config;
  config.env.name = "synthetic";
  config.run.max_env_steps = 6'000;
  config.graph.samplers = 3;
  config.graph.envs_per_sampler = 4;
  config.graph.inference_replicas = 2;
  config.graph.segment_length = 16;
  config.ppo.batch_size = 256;
  auto parts = default_graph_parts(config);
  std::atomic<int> built{0};
  const auto base = parts.make_env;
  parts.make_env = [&built, base](uint32_t sampler, size_t envs) {
    ++built;
    return base(sampler, envs);
  };
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(built == 3);
  CHECK(result->status.env_steps >= 6'000);
  CHECK(result->status.version >= 5);
}

TEST_CASE("an actor that fails ends the run with an error naming it") {
  Config config;
  config.run.max_env_steps = 1'000'000;
  auto parts = default_graph_parts(config);
  parts.make_env = [](uint32_t sampler, size_t) -> std::unique_ptr<envs::BatchedEnv> {
    if (sampler == 1) throw std::runtime_error("simulator license expired");
    envs::EnvConfig c;
    return envs::make_batched_env(c, 8);
  };
  auto result = train(config, parts);
  REQUIRE_FALSE(result);
  CHECK(result.error().message() == "actor_failed: sampler/1: simulator license expired");
}

TEST_CASE("a bad config is refused before anything starts") {
  Config config;
  config.graph.samplers = 0;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_FALSE(result);
  CHECK(result.error().message() == "invalid config: samplers must be at least 1");
}
