// A sampler's segment assembly: steps, versions and truncated final observations land where the
// learner expects them.
#include <doctest/doctest.h>

#include <algorithm>

#include <dvla/envs/env_config.hpp>
#include <dvla/envs/synthetic.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/trajectories/segment_builder.hpp>

using namespace dvla;

TEST_CASE("segments hold every step, the behaviour versions and truncated last observations") {
  envs::SyntheticConfig c;
  c.observation_size = 2;
  c.episode_length = 3;
  envs::SyntheticEnv env(c, 2);
  env.reset({1, 2});
  SegmentBuilder builder(env.spec(), 2, 4);
  std::vector<float> actions = {1, 0}, log_probs = {-0.5f, -0.7f}, values = {0.1f, 0.2f};
  std::vector<std::vector<float>> seen;
  for (uint64_t t = 0; t < 4; ++t) {
    msg::ActionBatch answer{
        0, t, 10 + t, {actions.data(), {2, 1}}, {log_probs.data(), {2}}, {values.data(), {2}}};
    seen.push_back(env.output().observations);
    builder.begin_step(env.output(), answer);
    env.step(actions.data());
    builder.end_step(env.output());
  }
  CHECK(builder.full());
  const float bootstrap[2] = {5, 6};
  const auto after = env.output().observations;  // what the bootstrap values value
  builder.observe_after(env.output());
  auto frame = builder.finish(9, 3, bootstrap);
  CHECK(builder.empty());
  auto s = msg::read(frame);
  REQUIRE(s);
  CHECK(s->sampler_id == 9);
  CHECK(s->sequence == 3);
  CHECK(s->steps() == 4);
  CHECK(s->envs() == 2);
  CHECK(s->policy_versions == std::vector<uint64_t>{10, 11, 12, 13});
  for (int t = 0; t < 4; ++t)
    for (int k = 0; k < 4; ++k) CHECK(s->observations.state.data[t * 4 + k] == seen[t][k]);
  // Both envs hit the 3-step limit on step 2 (index 2 * envs + env).
  CHECK(s->final_indices == std::vector<uint32_t>{4, 5});
  CHECK(s->truncated.data[4] == 1);
  CHECK(s->final_observations.state.shape == std::vector<int64_t>{2, 2});
  CHECK_FALSE(s->observations.has_images());
  CHECK(s->bootstrap_values.data[1] == 6);
  REQUIRE(s->bootstrap_observations.state.shape == std::vector<int64_t>{2, 2});
  CHECK(std::equal(after.begin(), after.end(), s->bootstrap_observations.state.data));
  // The next segment carries them only if they are observed again.
  msg::ActionBatch answer{
      0, 4, 14, {actions.data(), {2, 1}}, {log_probs.data(), {2}}, {values.data(), {2}}};
  builder.begin_step(env.output(), answer);
  CHECK_THROWS_AS(builder.observe_after(env.output()), std::logic_error);
  env.step(actions.data());
  builder.end_step(env.output());
  auto next = msg::read(builder.finish(9, 4, bootstrap));
  REQUIRE(next);
  CHECK(next->bootstrap_observations.state.rank() == 0);
}

TEST_CASE("a partial segment can be finished; misuse is refused") {
  envs::SyntheticEnv env(envs::SyntheticConfig{}, 1);
  env.reset({1});
  SegmentBuilder builder(env.spec(), 1, 8);
  const float zero = 0;
  CHECK_THROWS_AS(builder.finish(0, 0, &zero), std::logic_error);
  std::vector<float> a = {0}, lp = {0}, v = {0};
  msg::ActionBatch answer{0, 0, 0, {a.data(), {1, 1}}, {lp.data(), {1}}, {v.data(), {1}}};
  builder.begin_step(env.output(), answer);
  CHECK_THROWS_AS(builder.begin_step(env.output(), answer), std::logic_error);
  env.step(a.data());
  builder.end_step(env.output());
  auto s = msg::read(builder.finish(0, 0, &zero));
  REQUIRE(s);
  CHECK(s->steps() == 1);
}

TEST_CASE("tabletop segments carry images, instructions, success and truncated last frames") {
  envs::tabletop::TabletopConfig c;
  c.suite = "lift";
  c.image_size = 16;
  c.threads = 1;
  envs::tabletop::TabletopBatch env(c, 2);
  env.reset({5, 6});
  const int horizon = envs::tabletop::horizon(envs::tabletop::Family::lift);
  SegmentBuilder builder(env.spec(), 2, horizon);
  std::vector<float> actions(2 * 7, 0.f), log_probs = {0, 0}, values = {0, 0};
  std::vector<uint8_t> first_images = env.output().images, last_images;
  const auto first_tokens = env.output().instruction_tokens;
  for (int t = 0; t < horizon; ++t) {
    msg::ActionBatch answer{
        0, 0, 1, {actions.data(), {2, 7}}, {log_probs.data(), {2}}, {values.data(), {2}}};
    builder.begin_step(env.output(), answer);
    env.step(actions.data());
    builder.end_step(env.output());
    if (t == horizon - 1) last_images = env.output().final_images;
  }
  const float bootstrap[2] = {0, 0};
  auto s = msg::read(builder.finish(0, 0, bootstrap));
  REQUIRE(s);
  CHECK(s->observations.images.shape == std::vector<int64_t>{horizon, 2, 2, 16, 16, 3});
  CHECK(std::equal(first_images.begin(), first_images.end(), s->observations.images.data));
  CHECK(std::equal(first_tokens.begin(), first_tokens.end(), s->observations.instructions.data));
  // Zero actions never succeed: both episodes run into the horizon at the last step.
  CHECK(std::count(s->success.data, s->success.data + s->success.numel(), 1) == 0);
  CHECK(s->final_indices ==
        std::vector<uint32_t>{uint32_t(2 * horizon - 2), uint32_t(2 * horizon - 1)});
  CHECK(std::equal(last_images.begin(), last_images.end(), s->final_observations.images.data));
  CHECK(std::equal(first_tokens.begin(), first_tokens.end(),
                   s->final_observations.instructions.data));
}

TEST_CASE("episodic segments: steps after an env's episode ended are invalid; groups travel") {
  auto batch = envs::make_batched_env(envs::EnvConfig{}, 4);  // CartPole
  auto& env = *batch;
  env.reset({11, 11, 12, 12});  // two groups, each from one initial state
  CHECK(env.output().observations[0] == env.output().observations[4]);
  CHECK(env.output().observations[8] == env.output().observations[12]);
  SegmentBuilder builder(env.spec(), 4, 500);
  builder.start_episodes({0, 0, 1, 1});
  std::vector<float> actions(4), log_probs(4, -0.7f), values(4, 0);
  std::vector<int> end_step(4, -1);
  for (uint64_t t = 0; !builder.episodes_ended(); ++t) {
    for (int e = 0; e < 4; ++e) actions[e] = static_cast<float>((t * 7 + e * 3) % 5 < 2);
    msg::ActionBatch answer{
        0, t, 1, {actions.data(), {4, 1}}, {log_probs.data(), {4}}, {values.data(), {4}}};
    builder.begin_step(env.output(), answer);
    env.step(actions.data());
    builder.end_step(env.output());
    for (int e = 0; e < 4; ++e) {
      CHECK(builder.last_step_valid(e) == (end_step[e] < 0));
      if (end_step[e] < 0 && env.output().episode_ended(e)) end_step[e] = static_cast<int>(t);
    }
  }
  const float bootstrap[4] = {};
  auto s = msg::read(builder.finish(0, 0, bootstrap));
  REQUIRE(s);
  CHECK(s->groups == std::vector<int32_t>{0, 0, 1, 1});
  REQUIRE(s->valid.shape == std::vector<int64_t>{s->steps(), 4});
  for (int e = 0; e < 4; ++e) {
    REQUIRE(end_step[e] >= 0);
    for (int64_t t = 0; t < s->steps(); ++t) CHECK(s->valid.data[t * 4 + e] == (t <= end_step[e]));
  }
  CHECK(s->steps() == *std::max_element(end_step.begin(), end_step.end()) + 1);
  CHECK_THROWS_AS(builder.start_episodes({0, 1}), std::invalid_argument);
}
