// CartPole and Pendulum against hand-computed steps and Gym's rules; InvertedPendulum against
// Gymnasium's; the batched env's bookkeeping; action clipping at the env boundary; the synthetic
// env.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <dvla/envs/cartpole.hpp>
#include <dvla/envs/clipped_actions.hpp>
#include <dvla/envs/env_batch.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/inverted_pendulum.hpp>
#include <dvla/envs/pendulum.hpp>
#include <dvla/envs/step_latency.hpp>
#include <dvla/envs/synthetic.hpp>

using namespace dvla::envs;

TEST_CASE("CartPole steps match hand-computed Euler steps of CartPole-v1") {
  CartPole env;
  env.set_state({0.01, -0.02, 0.03, 0.04});
  float obs[4];
  const float right = 1.f, left = 0.f;
  // Expected values computed independently from Gym's CartPole-v1 equations.
  const double expected[3][4] = {{0.009600000000, 0.174679195748, 0.030800000000, -0.243068717960},
                                 {0.013093583915, -0.020868848948, 0.025938625641, 0.059167999939},
                                 {0.012676206936, -0.216352921046, 0.027121985640, 0.359920571378}};
  const float* actions[3] = {&right, &left, &left};
  for (int k = 0; k < 3; ++k) {
    auto r = env.step(actions[k], obs);
    CHECK(r.reward == 1.f);
    CHECK_FALSE(r.terminated);
    for (int i = 0; i < 4; ++i) {
      CHECK(env.state()[i] == doctest::Approx(expected[k][i]).epsilon(1e-9));
      CHECK(obs[i] == doctest::Approx(expected[k][i]).epsilon(1e-6));
    }
  }
}

TEST_CASE("CartPole terminates past 12 degrees or 2.4 m, with reward 1 on the last step") {
  CartPole env;
  float obs[4];
  const float push = 1.f;
  env.set_state({0, 0, 0.2094, 1.0});  // leaning right and falling: next step is past 12 degrees
  auto r = env.step(&push, obs);
  CHECK(r.terminated);
  CHECK(r.reward == 1.f);
  env.set_state({2.39, 1.0, 0, 0});
  CHECK(env.step(&push, obs).terminated);
  env.set_state({0, 0, 0, 0});
  CHECK_FALSE(env.step(&push, obs).terminated);
}

TEST_CASE("CartPole resets uniformly within 0.05 and reproducibly by seed") {
  CartPole a, b;
  float oa[4], ob[4];
  a.reset(123, oa);
  b.reset(123, ob);
  for (int i = 0; i < 4; ++i) {
    CHECK(oa[i] == ob[i]);
    CHECK(std::abs(oa[i]) <= 0.05f);
  }
  b.reset(124, ob);
  CHECK(std::vector<float>(oa, oa + 4) != std::vector<float>(ob, ob + 4));
}

TEST_CASE("EnvBatch truncates CartPole at 500 steps and auto-resets") {
  // Alternating pushes keep the pole up for the whole episode from a calm start.
  EnvBatch batch([] { return std::make_unique<CartPole>(); }, 1);
  batch.reset({7});
  int steps = 0;
  bool ended = false;
  while (!ended && steps < 1000) {
    const auto& o = batch.output().observations;
    const float action = o[2] + 0.5f * o[3] > 0 ? 1.f : 0.f;  // push toward the lean
    batch.step(&action);
    ++steps;
    ended = batch.output().episode_ended(0);
  }
  REQUIRE(ended);
  CHECK(steps == 500);
  CHECK(batch.output().truncated[0] == 1);
  CHECK(batch.output().terminated[0] == 0);
  CHECK(batch.output().episode_ends[0].episode_length == 500);
  CHECK(batch.output().episode_ends[0].episode_return == 500.f);
  // The observation is already the next episode's first one; the last one is kept.
  CHECK(std::abs(batch.output().observations[0]) <= 0.05f);
  CHECK(batch.output().final_observations != batch.output().observations);
}

TEST_CASE("EnvBatch refuses actions outside the action space, naming the env") {
  EnvBatch batch([] { return std::make_unique<CartPole>(); }, 2);
  batch.reset({1, 2});
  const float bad[2] = {0.f, 2.f};
  CHECK_THROWS_WITH_AS(batch.step(bad), "env 1 got action 2.000000, not an index below 2",
                       std::invalid_argument);
  const float half[2] = {0.5f, 1.f};
  CHECK_THROWS_AS(batch.step(half), std::invalid_argument);
  CHECK_THROWS_AS(batch.reset({1}), std::invalid_argument);
}

TEST_CASE("Pendulum steps match hand-computed steps of Pendulum-v1") {
  Pendulum p;
  CHECK(p.spec().action.type == ActionSpace::Type::continuous);
  CHECK(p.spec().action.low == -2.f);
  CHECK(p.spec().action.high == 2.f);
  float obs[3];
  // theta 1 rad from upright, theta_dot 0.5, torque 1.5.
  p.set_state({1.0, 0.5});
  const float torque = 1.5f;
  auto r = p.step(&torque, obs);
  CHECK(r.reward == doctest::Approx(-1.02725));
  CHECK_FALSE(r.terminated);
  CHECK(obs[0] == doctest::Approx(0.48204838));
  CHECK(obs[1] == doctest::Approx(0.87614460));
  CHECK(obs[2] == doctest::Approx(1.35610324));
  // A torque beyond 2 is clipped to 2; the angle's cost is taken in [-pi, pi) (3.5 rad is
  // 3.5 - 2 pi); the speed is clipped to 8.
  p.set_state({3.5, 7.9});
  const float too_much = 5.f;
  r = p.step(&too_much, obs);
  CHECK(r.reward == doctest::Approx(-13.99112045));
  CHECK(obs[0] == doctest::Approx(-0.72809816));
  CHECK(obs[1] == doctest::Approx(-0.68547288));
  CHECK(obs[2] == doctest::Approx(7.93691258));
  p.set_state({0.0, 8.0});
  r = p.step(&too_much, obs);
  CHECK(obs[2] == doctest::Approx(8.0));
}

TEST_CASE("Pendulum starts anywhere on the circle, reproducibly by seed; episodes last 200 steps") {
  Pendulum p;
  float a[3], b[3];
  std::set<float> angles;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    p.reset(seed, a);
    const auto s = p.state();
    CHECK(s[0] >= -3.14159266);
    CHECK(s[0] <= 3.14159266);
    CHECK(std::abs(s[1]) <= 1.0);
    CHECK(a[0] * a[0] + a[1] * a[1] == doctest::Approx(1.0));
    angles.insert(static_cast<float>(s[0]));
    p.reset(seed, b);
    CHECK(std::equal(a, a + 3, b));
  }
  CHECK(angles.size() == 50);
  EnvBatch batch([] { return std::make_unique<Pendulum>(); }, 1);
  batch.reset({7});
  const float none = 0.f;
  for (int t = 1; t <= 200; ++t) {
    batch.step(&none);
    CAPTURE(t);
    CHECK(batch.output().episode_ended(0) == (t == 200));
  }
}

TEST_CASE("InvertedPendulum: Gymnasium's spaces and limits; uncontrolled, the pole falls over") {
  InvertedPendulum p;
  const auto& spec = p.spec();
  CHECK(spec.observation_shape == std::vector<int64_t>{4});
  CHECK(spec.action.type == ActionSpace::Type::continuous);
  CHECK(spec.action.dim == 1);
  CHECK(spec.action.low == -3.f);
  CHECK(spec.action.high == 3.f);
  CHECK(spec.max_episode_steps == 1000);
  float obs[4];
  p.reset(3, obs);
  const float none = 0.f;
  int steps = 0;
  StepResult r;
  float previous_angle = obs[1];
  bool leaning_further = true;
  do {
    r = p.step(&none, obs);
    ++steps;
    CHECK(r.reward == 1.f);
    if (steps > 10)
      leaning_further = leaning_further && std::abs(obs[1]) >= std::abs(previous_angle);
    previous_angle = obs[1];
  } while (!r.terminated && steps < 1000);
  CHECK(r.terminated);
  CHECK(std::abs(obs[1]) > InvertedPendulum::max_pole_angle);
  CHECK(leaning_further);  // gravity: once it leans, it leans more
  CHECK(steps > 5);
  CHECK(steps < 200);
}

TEST_CASE("InvertedPendulum starts within 0.01 of rest upright, reproducibly by seed") {
  InvertedPendulum p;
  float a[4], b[4];
  std::set<float> starts;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    p.reset(seed, a);
    for (float x : a) CHECK(std::abs(x) <= 0.01f);
    starts.insert(a[1]);
    p.reset(seed, b);
    CHECK(std::equal(a, a + 4, b));
  }
  CHECK(starts.size() == 20);
  // Pushing the cart right tips the pole back (left): the hinge angle and the push have opposite
  // signs, as in Gymnasium's model.
  p.reset(1, a);
  const float push = 3.f;
  for (int t = 0; t < 3; ++t) p.step(&push, a);
  CHECK(a[2] > 0.f);  // the cart moves right
  CHECK(a[1] < 0.f);
}

namespace {

// A continuous env with bounds [-2, 1] x 2 that records the actions it was given.
struct RecordingEnv final : Env {
  EnvSpec spec_;
  std::vector<float>* seen;
  explicit RecordingEnv(std::vector<float>* record) : seen(record) {
    spec_.name = "recording";
    spec_.observation_shape = {1};
    spec_.action.type = ActionSpace::Type::continuous;
    spec_.action.dim = 2;
    spec_.action.low = -2.f;
    spec_.action.high = 1.f;
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t, float* observation) override { observation[0] = 0.f; }
  StepResult step(const float* action, float* observation) override {
    seen->assign(action, action + 2);
    observation[0] = 0.f;
    return {};
  }
};

}  // namespace

TEST_CASE("continuous actions are clipped to the env's bounds before it steps; discrete envs not") {
  std::vector<float> seen;
  auto batch = std::make_unique<EnvBatch>([&] { return std::make_unique<RecordingEnv>(&seen); }, 1);
  auto clipped = with_clipped_actions(std::move(batch));
  clipped->reset({1});
  const float drawn[2] = {5.f, -7.5f};
  clipped->step(drawn);
  CHECK(seen == std::vector<float>{1.f, -2.f});
  const float inside[2] = {0.25f, -1.5f};
  clipped->step(inside);
  CHECK(seen == std::vector<float>{0.25f, -1.5f});
  const float nan[2] = {std::nanf(""), 0.f};  // still refused, naming the env
  CHECK_THROWS_WITH_AS(clipped->step(nan), "env 0 got action nan, not a finite number",
                       std::invalid_argument);
  // The registry's envs are clipped unless env.clip_actions is off; CartPole's are indices.
  EnvConfig pendulum;
  pendulum.name = "pendulum";
  CHECK(dynamic_cast<ClippedActions*>(make_batched_env(pendulum, 1).get()) != nullptr);
  pendulum.clip_actions = false;
  CHECK(dynamic_cast<ClippedActions*>(make_batched_env(pendulum, 1).get()) == nullptr);
  CHECK(dynamic_cast<ClippedActions*>(make_batched_env(EnvConfig{}, 1).get()) == nullptr);
}

TEST_CASE("cartpole.step_latency_us slows CartPole's steps and changes nothing else") {
  EnvConfig plain, slowed;
  slowed.cartpole.step_latency_us = 50;
  auto a = make_batched_env(plain, 4), b = make_batched_env(slowed, 4);
  CHECK(dynamic_cast<SlowedEnv*>(b.get()) != nullptr);
  a->reset({1, 2, 3, 4});
  b->reset({1, 2, 3, 4});
  const float actions[4] = {0, 1, 1, 0};
  for (int t = 0; t < 30; ++t) {
    a->step(actions);
    b->step(actions);
    CHECK(a->output().observations == b->output().observations);
    CHECK(a->output().rewards == b->output().rewards);
    CHECK(a->output().terminated == b->output().terminated);
  }
  EnvConfig negative;
  negative.cartpole.step_latency_us = -1;
  CHECK_THROWS_WITH_AS(make_batched_env(negative, 1),
                       "cartpole.step_latency_us must be 0..10000000, not -1",
                       std::invalid_argument);
}

TEST_CASE("derived seeds differ between envs and between samplers") {
  std::set<uint64_t> seen;
  for (uint64_t sampler = 0; sampler < 4; ++sampler)
    for (auto s : derive_seeds(1, sampler, 16)) seen.insert(s);
  CHECK(seen.size() == 64);
  CHECK(derive_seeds(1, 0, 4) == derive_seeds(1, 0, 4));
}

TEST_CASE("synthetic env rewards the action that matches the sign of observation[0]") {
  SyntheticConfig c;
  c.observation_size = 3;
  c.episode_length = 4;
  SyntheticEnv env(c, 2);
  env.reset({1, 2});
  int truncations = 0;
  for (int t = 0; t < 8; ++t) {
    const auto& o = env.output().observations;
    const float good[2] = {o[0] > 0 ? 1.f : 0.f, o[3] > 0 ? 0.f : 1.f};  // env 1 answers wrong
    env.step(good);
    CHECK(env.output().rewards[0] == 1.f);
    CHECK(env.output().rewards[1] == 0.f);
    truncations += env.output().truncated[0];
  }
  CHECK(truncations == 2);
  CHECK(env.output().episode_ends[0].episode_return == 4.f);
}

TEST_CASE("unknown envs are refused by name") {
  EnvConfig c;
  c.name = "atari";
  CHECK_THROWS_WITH_AS(make_batched_env(c, 1),
                       "env 'atari' is not available (cartpole, pendulum, inverted_pendulum, "
                       "synthetic, tabletop)",
                       std::invalid_argument);
}
