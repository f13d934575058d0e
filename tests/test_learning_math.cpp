// GAE, the PPO loss and GRPO's group advantages on small hand-computed cases; flat-parameter views
// alias their buffer; observation normalisation, reward scaling, value clipping and learning-rate
// annealing by hand; FlatAdam against LibTorch's Adam; the MLP's tanh against ATen's.
#include "doctest_with_torch.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <dvla/envs/cartpole.hpp>
#include <dvla/envs/pendulum.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/config/learning_rate_schedule.hpp>
#include <dvla/runtime/learners/builtin_algorithms.hpp>
#include <dvla/runtime/learners/flat_adam.hpp>
#include <dvla/runtime/learners/grpo.hpp>
#include <dvla/runtime/learners/optimizer_state.hpp>
#include <dvla/runtime/learners/ppo.hpp>
#include <dvla/runtime/learners/reward_scaler.hpp>
#include <dvla/runtime/learners/training_batch.hpp>
#include <dvla/runtime/policies/actor_critic.hpp>
#include <dvla/runtime/policies/fast_tanh.hpp>
#include <dvla/runtime/policies/observation_normalizer.hpp>
#include <dvla/runtime/trajectories/gae.hpp>
#include <dvla/runtime/versions/staleness.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

using namespace dvla;

TEST_CASE("GAE over one env: bootstrap, terminal and truncated steps") {
  // Steps: 0 ordinary, 1 terminal, 2 ordinary, 3 truncated, 4 ordinary (bootstrapped).
  const float rewards[5] = {1, 2, 3, 4, 5};
  const float values[5] = {0.5f, 1, 1.5f, 2, 2.5f};
  const uint8_t terminated[5] = {0, 1, 0, 0, 0};
  const uint8_t truncated[5] = {0, 0, 0, 1, 0};
  const float truncated_values[5] = {0, 0, 0, 10, 0};
  const float bootstrap[1] = {6};
  GaeInput in{5,         1,    rewards, values, terminated, truncated, truncated_values,
              bootstrap, 0.5f, 0.5f};
  const auto a = generalized_advantages(in);
  // delta4 = 5 + 0.5*6 - 2.5 = 5.5                  A4 = 5.5
  // delta3 = 4 + 0.5*10 - 2 = 7 (cut)               A3 = 7
  // delta2 = 3 + 0.5*2 - 1.5 = 2.5                  A2 = 2.5 + 0.25*7 = 4.25
  // delta1 = 2 - 1 = 1 (terminal)                   A1 = 1
  // delta0 = 1 + 0.5*1 - 0.5 = 1                    A0 = 1 + 0.25*1 = 1.25
  CHECK(a[4] == doctest::Approx(5.5));
  CHECK(a[3] == doctest::Approx(7.0));
  CHECK(a[2] == doctest::Approx(4.25));
  CHECK(a[1] == doctest::Approx(1.0));
  CHECK(a[0] == doctest::Approx(1.25));
}

TEST_CASE("GAE keeps envs apart in a [T, envs] layout") {
  const float rewards[4] = {1, 0, 1, 0};  // t0: env0 1, env1 0; t1: env0 1, env1 0
  const float values[4] = {0, 0, 0, 0};
  const uint8_t none[4] = {0, 0, 0, 0};
  const float zeros[4] = {0, 0, 0, 0};
  const float bootstrap[2] = {0, 4};
  GaeInput in{2, 2, rewards, values, none, none, zeros, bootstrap, 1.0f, 1.0f};
  const auto a = generalized_advantages(in);
  CHECK(a[0] == doctest::Approx(2));  // env0: 1 + 1
  CHECK(a[2] == doctest::Approx(1));
  CHECK(a[1] == doctest::Approx(4));  // env1: only the bootstrap
  CHECK(a[3] == doctest::Approx(4));
}

TEST_CASE("PPO loss on a hand-computed minibatch") {
  PpoConfig c;
  c.clip = 0.2;
  c.value_coef = 0.5;
  c.entropy_coef = 0.1;
  PolicyEvaluation now;
  // ratios: e^0.5 = 1.6487 (clipped to 1.2 for A>0), e^-0.5 = 0.6065 (A<0: clipped to 0.8)
  now.log_probs = at::tensor({0.5f, -0.5f});
  now.entropy = at::tensor({1.0f, 0.5f});
  now.values = at::tensor({1.0f, 2.0f});
  const auto behaviour = at::zeros({2});
  const auto advantages = at::tensor({2.0f, -1.0f});
  const auto returns = at::tensor({2.0f, 0.0f});
  const auto l = ppo_loss(now, behaviour, advantages, returns, c);
  // policy: -mean(min(1.6487*2, 1.2*2), min(0.6065*-1, 0.8*-1)) = -mean(2.4, -0.8) = -0.8
  CHECK(l.policy.item<double>() == doctest::Approx(-0.8).epsilon(1e-5));
  // value: 0.5 * mean((1-2)^2, (2-0)^2) = 0.5 * 2.5 = 1.25
  CHECK(l.value.item<double>() == doctest::Approx(1.25));
  CHECK(l.entropy.item<double>() == doctest::Approx(0.75));
  CHECK(l.total.item<double>() == doctest::Approx(-0.8 + 0.5 * 1.25 - 0.1 * 0.75).epsilon(1e-5));
  CHECK(l.clip_fraction == doctest::Approx(1.0));
  // approx_kl = mean((r - 1) - log r) = mean(0.6487 - 0.5, -0.3935 + 0.5)
  CHECK(l.approx_kl == doctest::Approx((0.64872 - 0.5 + (-0.39347) + 0.5) / 2).epsilon(1e-4));
}

TEST_CASE("flat parameters: every parameter is a view of the one buffer") {
  envs::CartPole cartpole;
  ActorCritic policy(cartpole.spec(), {8, 8}, 3);
  const auto before = policy.parameters();
  std::vector<at::Tensor> values;
  for (const auto& p : before) values.push_back(p.detach().clone());
  FlatParameters flat(policy);

  int64_t total = 0;
  const auto* begin = flat.flat().data_ptr<float>();
  size_t i = 0;
  for (const auto& p : policy.parameters()) {
    total += p.numel();
    const auto* ptr = p.data_ptr<float>();
    CHECK(ptr >= begin);
    CHECK(ptr + p.numel() <= begin + flat.size());
    CHECK(at::equal(p.detach(), values[i++]));  // values survived the move
  }
  CHECK(total == flat.size());
  CHECK(flat.manifest().size() == before.size());

  // Writing the buffer changes the parameters, and an optimizer step changes the buffer.
  {
    at::NoGradGuard g;
    flat.flat().fill_(0.25f);
  }
  for (const auto& p : policy.parameters()) CHECK(p.detach().eq(0.25f).all().item<bool>());
  torch::optim::Adam adam(policy.parameters(), torch::optim::AdamOptions(0.1));
  PolicyInput obs{at::randn({4, 4}), {}, {}};
  policy.evaluate(obs, at::zeros({4, 1})).values.sum().backward();
  adam.step();
  CHECK_FALSE(flat.flat().eq(0.25f).all().item<bool>());
}

TEST_CASE("flat parameters load an update in one copy and refuse a foreign manifest") {
  envs::CartPole cartpole;
  ActorCritic a(cartpole.spec(), {8}, 1), b(cartpole.spec(), {8}, 2),
      other(cartpole.spec(), {16}, 1);
  FlatParameters fa(a), fb(b), fo(other);
  CHECK_FALSE(at::equal(fa.flat(), fb.flat()));
  auto frame = fa.to_frame(9);
  auto update = msg::read(frame);
  REQUIRE(update);
  const auto* buffer = fb.flat().data_ptr<float>();
  REQUIRE(fb.load(*update));
  CHECK(at::equal(fa.flat(), fb.flat()));
  CHECK(fb.flat().data_ptr<float>() == buffer);  // copied into place, not re-allocated
  PolicyInput obs{at::randn({3, 4}), {}, {}};
  CHECK(at::allclose(a.value(obs), b.value(obs)));
  auto refused = fo.load(*update);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message().find("does not fit this policy") != std::string::npos);
}

TEST_CASE("actor-critic: same seed, same parameters; sampling follows the generator") {
  envs::CartPole cartpole;
  ActorCritic a(cartpole.spec(), {16, 16}, 5), b(cartpole.spec(), {16, 16}, 5);
  FlatParameters fa(a), fb(b);
  CHECK(at::equal(fa.flat(), fb.flat()));
  auto g1 = at::make_generator<at::CPUGeneratorImpl>(1),
       g2 = at::make_generator<at::CPUGeneratorImpl>(1);
  PolicyInput obs{at::randn({64, 4}), {}, {}};
  auto x = a.act(obs, false, g1), y = b.act(obs, false, g2);
  CHECK(at::equal(x.actions, y.actions));
  CHECK(x.actions.sizes() == at::IntArrayRef({64, 1}));
  CHECK(x.actions.min().item<float>() >= 0);
  CHECK(x.actions.max().item<float>() <= 1);
  auto eval = a.evaluate(obs, x.actions);
  CHECK(at::allclose(eval.log_probs, x.log_probs));
}

TEST_CASE("the staleness bound drops and counts samples beyond the lag") {
  StalenessBound bound(2);
  CHECK(bound.admit(5, 3, 100));
  CHECK_FALSE(bound.admit(5, 2, 64));
  CHECK(bound.admit(1, 4, 10));  // samples from a newer policy than the learner are not stale
  CHECK(bound.dropped() == 64);
}

TEST_CASE("GRPO advantages on hand-computed groups") {
  // Group 0 scores {1, 0, 0, 1}: mean 0.5, deviation 0.5. Group 1 all equal: no signal.
  // Group 2 scores {3, 0, 0, 1}: mean 1, deviation sqrt(1.5) = 1.2247.
  const std::vector<float> scores = {1, 0, 0, 1, 1, 1, 1, 1, 3, 0, 0, 1};
  const std::vector<int32_t> groups = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  const auto g = group_advantages(scores, groups);
  const std::vector<float> expected = {1, -1, -1, 1, 0, 0, 0, 0, 1.63299f, -0.81650f, -0.81650f, 0};
  for (size_t e = 0; e < scores.size(); ++e)
    CHECK(g.advantage[e] == doctest::Approx(expected[e]).epsilon(1e-4));
  CHECK(g.informative == std::vector<uint8_t>{1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1});
  // Groups need not be contiguous.
  const auto mixed = group_advantages({2, 5, 4, 1}, {7, 3, 7, 3});
  CHECK(mixed.advantage[0] == doctest::Approx(-1).epsilon(1e-4));
  CHECK(mixed.advantage[1] == doctest::Approx(1).epsilon(1e-4));
}

TEST_CASE("GRPO batches: scores, valid steps of informative groups, their advantages") {
  // 3 steps x 4 envs; groups {0, 0, 1, 1}. Env 0 succeeds at t=1, env 1 fails at t=2 (limit),
  // envs 2 and 3 both fail at t=0: group 1 carries no signal under the success reward.
  const int64_t T = 3, E = 4;
  std::vector<float> state(T * E * 2), actions(T * E), log_probs(T * E), values(T * E, 0);
  for (int64_t i = 0; i < T * E; ++i) {
    state[i * 2] = static_cast<float>(i);
    actions[i] = 100.f + static_cast<float>(i);
    log_probs[i] = -static_cast<float>(i);
  }
  std::vector<float> rewards = {0.5f, 0.1f, 2, 3,  //
                                1,    0.2f, 7, 7,  //
                                9,    0.3f, 7, 7};
  std::vector<uint8_t> terminated = {0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
  std::vector<uint8_t> truncated = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
  std::vector<uint8_t> success = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  std::vector<uint8_t> valid = {1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0};
  std::vector<float> bootstrap(E, 0);
  msg::TrajectorySegment s;
  s.observations.state = {state.data(), {T, E, 2}};
  s.actions = {actions.data(), {T, E, 1}};
  s.rewards = {rewards.data(), {T, E}};
  s.terminated = {terminated.data(), {T, E}};
  s.truncated = {truncated.data(), {T, E}};
  s.success = {success.data(), {T, E}};
  s.log_probs = {log_probs.data(), {T, E}};
  s.values = {values.data(), {T, E}};
  s.bootstrap_values = {bootstrap.data(), {E}};
  s.policy_versions = {4, 5, 6};
  s.valid = {valid.data(), {T, E}};
  s.groups = {0, 0, 1, 1};
  CHECK(grpo_mismatch(s).empty());
  CHECK(episode_scores(s, EpisodeScore::success) == std::vector<float>{1, 0, 0, 0});
  const auto returns =
      episode_scores(s, EpisodeScore::episode_return);  // invalid steps do not count
  CHECK(returns[0] == doctest::Approx(1.5));
  CHECK(returns[1] == doctest::Approx(0.6));
  CHECK(returns[2] == doctest::Approx(2));
  CHECK(returns[3] == doctest::Approx(3));
  // Success: group 0 only; valid cells of envs 0 and 1: (0,0) (0,1) (1,0) (1,1) (2,1).
  CHECK(informative_samples(s, EpisodeScore::success) == 5);
  const auto b = make_grpo_batch({s}, EpisodeScore::success, 6);
  REQUIRE(b.size() == 5);
  const std::vector<float> rows = {0, 1, 4, 5, 9};
  for (int64_t k = 0; k < 5; ++k) {
    CHECK(b.inputs.state[k][0].item<float>() == rows[k]);
    CHECK(b.actions[k][0].item<float>() == 100 + rows[k]);
    CHECK(b.log_probs[k].item<float>() == -rows[k]);
    const float expected = static_cast<int>(rows[k]) % 4 == 0 ? 1.f : -1.f;
    CHECK(b.advantages[k].item<float>() == doctest::Approx(expected).epsilon(1e-4));
  }
  // Lag against version 6: steps 0, 1, 2 are 2, 1, 0 behind; rows 0 1 4 5 9 -> 2 2 1 1 0.
  CHECK(b.policy_lag.mean() == doctest::Approx(6.0 / 5));
  CHECK(b.policy_lag.samples == std::vector<uint64_t>{1, 2, 2});
  CHECK(at::equal(b.sample_lags, at::tensor(std::vector<int64_t>{2, 2, 1, 1, 0}, at::kLong)));
  CHECK_FALSE(b.reference_log_probs.defined());
  // Under the return reward both groups differ: every valid step trains.
  CHECK(informative_samples(s, EpisodeScore::episode_return) == 7);

  msg::TrajectorySegment continuous = s;
  continuous.valid = {};
  continuous.groups.clear();
  CHECK(grpo_mismatch(continuous).find("not episodic") != std::string::npos);
  msg::TrajectorySegment unfinished = s;
  std::vector<uint8_t> none(T * E, 0);
  unfinished.terminated = {none.data(), {T, E}};
  unfinished.truncated = {none.data(), {T, E}};
  CHECK(grpo_mismatch(unfinished) == "segment env 0's episode does not end in it");
}

TEST_CASE("PPO batches: advantages from the behaviour values, or from the learner's critic") {
  // 3 steps x 2 envs of CartPole observations; env 1 ends at t=1.
  envs::CartPole cartpole;
  ActorCritic learner(cartpole.spec(), {16, 16}, 5);
  const int64_t T = 3, E = 2;
  std::vector<float> state(T * E * 4), actions(T * E, 1), log_probs(T * E, -0.7f);
  for (size_t i = 0; i < state.size(); ++i) state[i] = 0.01f * static_cast<float>(i);
  std::vector<float> rewards(T * E, 1), values = {5, 6, 5, 6, 5, 6}, bootstrap = {7, 8};
  std::vector<uint8_t> terminated = {0, 0, 0, 1, 0, 0}, truncated(T * E, 0);
  msg::TrajectorySegment s;
  s.observations.state = {state.data(), {T, E, 4}};
  s.actions = {actions.data(), {T, E, 1}};
  s.rewards = {rewards.data(), {T, E}};
  s.terminated = {terminated.data(), {T, E}};
  s.truncated = {truncated.data(), {T, E}};
  s.log_probs = {log_probs.data(), {T, E}};
  s.values = {values.data(), {T, E}};
  s.bootstrap_values = {bootstrap.data(), {E}};
  s.policy_versions = {1, 1, 2};
  const std::vector<float> no_truncation(T * E, 0);
  auto gae = [&](const float* v, const float* boot) {
    return generalized_advantages({T, E, rewards.data(), v, terminated.data(), truncated.data(),
                                   no_truncation.data(), boot, 0.9f, 0.8f});
  };
  auto check = [&](const TrainingBatch& b, const std::vector<float>& v,
                   const std::vector<float>& boot) {
    const auto expected = gae(v.data(), boot.data());
    REQUIRE(b.size() == T * E);
    for (int64_t i = 0; i < T * E; ++i) {
      CAPTURE(i);
      CHECK(b.values[i].item<float>() == doctest::Approx(v[i]));
      CHECK(b.advantages[i].item<float>() == doctest::Approx(expected[i]));
      CHECK(b.returns[i].item<float>() == doctest::Approx(expected[i] + v[i]));
    }
    // Versions 1, 1, 2 against the learner's 2: each step's envs lag 1, 1, 0.
    CHECK(at::equal(b.sample_lags, at::tensor(std::vector<int64_t>{1, 1, 1, 1, 0, 0}, at::kLong)));
  };
  auto critic = [&](std::vector<float>& state_rows) {
    const auto rows = static_cast<int64_t>(state_rows.size() / 4);
    const auto v = learner.value(PolicyInput{at::from_blob(state_rows.data(), {rows, 4}), {}, {}});
    return std::vector<float>(v.data_ptr<float>(), v.data_ptr<float>() + rows);
  };
  check(make_training_batch({s}, learner, 0.9f, 0.8f, 2, AdvantageValues::behaviour), values,
        bootstrap);
  // The learner's critic values every observation (the bootstrap values stay the segment's).
  const auto learner_values = critic(state);
  CHECK(learner_values != values);
  check(make_training_batch({s}, learner, 0.9f, 0.8f, 2, AdvantageValues::learner), learner_values,
        bootstrap);
  // A segment that carries what its envs observe after its last step is bootstrapped by the
  // learner's critic too; the behaviour's values ignore those observations.
  std::vector<float> after = {0.3f, -0.2f, 0.1f, 0.05f, -0.4f, 0.2f, 0.0f, 0.1f};
  s.bootstrap_observations.state = {after.data(), {E, 4}};
  const auto learner_bootstrap = critic(after);
  CHECK(learner_bootstrap != bootstrap);
  check(make_training_batch({s}, learner, 0.9f, 0.8f, 2, AdvantageValues::learner), learner_values,
        learner_bootstrap);
  check(make_training_batch({s}, learner, 0.9f, 0.8f, 2, AdvantageValues::behaviour), values,
        bootstrap);
}

TEST_CASE("decoupled PPO for lagging samples: clipped around the proximal policy, weighted") {
  PpoConfig c;
  c.clip = 0.2;
  c.value_coef = 0;
  PolicyEvaluation now;
  now.log_probs = at::tensor({0.5f, -0.5f});
  now.entropy = at::zeros({2});
  now.values = at::zeros({2});
  const auto behaviour = at::zeros({2}), returns = at::zeros({2});
  const auto advantages = at::tensor({2.0f, -1.0f});
  // Proximal = behaviour: plain PPO (both ratios clipped: -mean(1.2 * 2, 0.8 * -1) = -0.8).
  const auto plain = ppo_loss(now, behaviour, advantages, returns, c, {}, behaviour);
  CHECK(plain.policy.item<double>() == doctest::Approx(-0.8).epsilon(1e-5));
  // Proximal {0.4, -0.3}: ratios e^0.1 = 1.10517 and e^-0.2 = 0.81873, inside the clip range;
  // weights e^0.4 = 1.49182 and e^-0.3 = 0.74082.
  const auto proximal = at::tensor({0.4f, -0.3f});
  const auto l = ppo_loss(now, behaviour, advantages, returns, c, {}, proximal);
  CHECK(l.policy.item<double>() ==
        doctest::Approx(-(1.49182 * 1.10517 * 2 + 0.74082 * 0.81873 * -1) / 2).epsilon(1e-4));
  CHECK(l.clip_fraction == doctest::Approx(0.0));
  CHECK(l.approx_kl == doctest::Approx((0.10517 - 0.1 + -0.18127 + 0.2) / 2).epsilon(1e-3));
  // With a cap of 1.2 the first weight is cut to it; the second (below) stays.
  c.importance_weight_cap = 1.2;
  const auto capped = ppo_loss(now, behaviour, advantages, returns, c, {}, proximal);
  CHECK(capped.policy.item<double>() ==
        doctest::Approx(-(1.2 * 1.10517 * 2 + 0.74082 * 0.81873 * -1) / 2).epsilon(1e-4));
}

TEST_CASE("the KL term to a reference policy, by hand") {
  PolicyEvaluation now;
  now.log_probs = at::zeros({2}, at::requires_grad());
  now.entropy = at::zeros({2});
  now.values = at::zeros({2});
  const auto behaviour = at::zeros({2}), advantages = at::zeros({2}), returns = at::zeros({2});
  PpoConfig c;
  c.value_coef = 0;
  c.kl_coef = 0.5;
  const auto same = ppo_loss(now, behaviour, advantages, returns, c, at::zeros({2}));
  CHECK(same.reference_kl.item<double>() == doctest::Approx(0));
  // d = reference - now = {ln 2, 0}: exp(d) - d - 1 = {1 - ln 2, 0}; mean (1 - ln 2) / 2.
  const auto reference = at::tensor({std::log(2.f), 0.f});
  const auto l = ppo_loss(now, behaviour, advantages, returns, c, reference);
  CHECK(l.reference_kl.item<double>() == doctest::Approx((1 - std::log(2.0)) / 2).epsilon(1e-5));
  CHECK(l.total.item<double>() == doctest::Approx(0.5 * (1 - std::log(2.0)) / 2).epsilon(1e-5));
  CHECK_FALSE(ppo_loss(now, behaviour, advantages, returns, c).reference_kl.defined());
}

TEST_CASE("observation normalisation: running moments of every batch, clipped, in the weights") {
  ObservationNormalizer n(2);
  const auto one = at::tensor({1.f, -2.f}).view({1, 2});
  CHECK(at::allclose(n.forward(one), one));
  auto gen = at::make_generator<at::CPUGeneratorImpl>(4);
  const auto first = at::randn({300, 2}, gen) * at::tensor({3.f, 0.5f}) + at::tensor({10.f, -1.f});
  const auto second = at::randn({100, 2}, gen) * 2 + 4;
  n.update(first);
  n.update(second);
  const auto all = at::cat({first, second}).to(at::kDouble);
  CHECK(n.count() == doctest::Approx(400.0001));
  CHECK(at::allclose(n.mean().to(at::kDouble), all.mean(0), 1e-4, 1e-4));
  CHECK(at::allclose(n.variance().to(at::kDouble), all.var(0, false), 1e-3, 1e-3));
  const auto x = at::tensor({10.f, -1.f, 1e6f, -1e6f}).view({2, 2});
  const auto y = n.forward(x);
  CHECK(at::allclose(y[0], (x[0] - n.mean()) / n.variance().sqrt(), 1e-4, 1e-4));
  CHECK(y[1][0].item<float>() == 10.f);  // clipped
  CHECK(y[1][1].item<float>() == -10.f);

  // An actor-critic acts on normalised observations; its statistics are parameters without
  // gradient, so a copy loading its flat weights (a replica, the evaluator) acts the same.
  envs::Pendulum pendulum;
  ActorCritic learner(pendulum.spec(), {8}, 3), replica(pendulum.spec(), {8}, 3);
  PolicyInput obs{at::tensor({0.5f, 0.8f, 6.f, -1.f, 0.f, -7.f}).view({2, 3}), {}, {}};
  const auto before = learner.value(obs);
  learner.update_statistics(PolicyInput{at::randn({64, 3}, gen) * 4, {}, {}});
  CHECK_FALSE(at::allclose(learner.value(obs), before));
  for (const auto& p : learner.named_parameters())
    if (p.key().find("observation_normalizer") == 0) CHECK_FALSE(p.value().requires_grad());
  FlatParameters from(learner), to(replica);
  auto update = msg::read(from.to_frame(1));
  REQUIRE(update);
  REQUIRE(to.load(*update));
  auto g1 = at::make_generator<at::CPUGeneratorImpl>(1);
  CHECK(at::allclose(replica.act(obs, true, g1).actions, learner.act(obs, true, g1).actions));
  CHECK(at::allclose(replica.value(obs), learner.value(obs)));
  // model.normalize_observations=false: observations as they are, no statistics.
  ActorCriticOptions plain;
  plain.normalize_observations = false;
  plain.initial_log_std = -1.5;
  ActorCritic raw(pendulum.spec(), plain, 3);
  CHECK(raw.named_parameters().find("observation_normalizer.mean") == nullptr);
  CHECK(raw.named_parameters()["log_std"].item<float>() == doctest::Approx(-1.5));
}

namespace {

// A segment of `rewards` [T, envs] (ends where `ended`), the rest of it empty.
struct RewardSegment {
  std::vector<float> rewards;
  std::vector<uint8_t> ended, not_ended;
  msg::TrajectorySegment segment;

  RewardSegment(std::vector<float> r, std::vector<uint8_t> e, int64_t envs, uint32_t sampler,
                uint32_t first_env)
      : rewards(std::move(r)), ended(std::move(e)), not_ended(ended.size(), 0) {
    const int64_t steps = static_cast<int64_t>(rewards.size()) / envs;
    segment.sampler_id = sampler;
    segment.first_env = first_env;
    segment.observations.state = {rewards.data(), {steps, envs}};  // only its shape is read
    segment.rewards = {rewards.data(), {steps, envs}};
    segment.terminated = {ended.data(), {steps, envs}};
    segment.truncated = {not_ended.data(), {steps, envs}};
  }
};

}  // namespace

TEST_CASE("reward scaling: by the running std of each env's discounted return, across segments") {
  const double gamma = 0.5;
  RewardScaler scaler(gamma);
  // Sampler 0's envs 0-1 (two segments of one stream, env 1 ends at its first step) and its env
  // buffer at envs 2-3 (another stream): returns run on per (sampler, env), reset at an end.
  RewardSegment a({2, 4, 2, 4}, {0, 1, 0, 0}, 2, 0, 0);
  RewardSegment other({8, 8}, {0, 0}, 2, 0, 2);
  RewardSegment b({2, 4}, {0, 0}, 2, 0, 0);
  std::vector<double> returns = {2, 4, 2 + 0.5 * 2, 4};  // a: env 1 restarts after step 0
  RunningMoments expected;
  expected.add(returns);
  const auto scaled_a = scaler.scale(a.segment);
  CHECK(scaler.moments().mean == doctest::Approx(expected.mean));
  CHECK(scaler.moments().variance == doctest::Approx(expected.variance));
  const double divisor = std::sqrt(expected.variance + 1e-8);
  for (size_t i = 0; i < 4; ++i) CHECK(scaled_a[i] == doctest::Approx(a.rewards[i] / divisor));
  scaler.scale(other.segment);
  expected.add({8, 8});
  scaler.scale(b.segment);
  expected.add({2 + 0.5 * 3, 4 + 0.5 * 4});  // continued from a's last step
  CHECK(scaler.moments().count == doctest::Approx(expected.count));
  CHECK(scaler.moments().mean == doctest::Approx(expected.mean));
  CHECK(scaler.moments().variance == doctest::Approx(expected.variance));
  // All-at-once moments agree with the merged ones.
  const std::vector<double> all = {2, 4, 3, 4, 8, 8, 3.5, 6};
  double mean = 0, m2 = 0;
  for (double v : all) mean += v / all.size();
  for (double v : all) m2 += (v - mean) * (v - mean);
  CHECK(expected.mean == doctest::Approx(mean).epsilon(1e-4));
  CHECK(expected.variance == doctest::Approx(m2 / all.size()).epsilon(1e-4));

  // Checkpoints keep the moments; a bad text is refused naming what is wrong.
  RewardScaler restored(gamma);
  REQUIRE(restored.from_json(scaler.to_json()));
  CHECK(restored.scale_divisor() == doctest::Approx(scaler.scale_divisor()));
  auto bad = restored.from_json(R"({"return_count": 1})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("reward scale") == 0);
  CHECK_FALSE(restored.from_json(R"({"return_count": 0, "return_mean": 0, "return_variance": 1})"));

  // PPO's batch with ppo.reward_scale=return_std: GAE over the scaled rewards; its checkpoint
  // state is the scaler's.
  Config config;
  config.ppo.gamma = gamma;
  auto ppo = make_ppo_algorithm(config);
  envs::Pendulum pendulum;
  ActorCritic policy(pendulum.spec(), {8}, 3);
  std::vector<float> state(2 * 2 * 3, 0.1f), actions(2 * 2, 0.f), zeros(2 * 2, 0.f);
  auto segment = a.segment;
  segment.observations.state = {state.data(), {2, 2, 3}};
  segment.actions = {actions.data(), {2, 2, 1}};
  segment.log_probs = {zeros.data(), {2, 2}};
  segment.values = {zeros.data(), {2, 2}};
  segment.bootstrap_values = {zeros.data(), {2}};
  segment.policy_versions = {0, 0};
  const auto batch = ppo->make_batch({segment}, policy, 0);
  RewardScaler alone(gamma);
  const auto expected_rewards = alone.scale(a.segment);
  auto scaled_segment = segment;
  scaled_segment.rewards.data = expected_rewards.data();
  const auto by_hand = make_training_batch({scaled_segment}, policy, 0.5f, 0.95f, 0,
                                            config.ppo.advantage_values);
  CHECK(at::allclose(batch.advantages, by_hand.advantages));
  CHECK(ppo->checkpoint_state() == alone.to_json());
  config.ppo.reward_scale = RewardScale::none;
  CHECK(make_ppo_algorithm(config)->checkpoint_state().empty());
}

TEST_CASE("value-loss clipping keeps the pessimistic of the plain and the clipped loss") {
  PpoConfig c;
  c.value_clip = 0.5;
  PolicyEvaluation now;
  now.log_probs = at::zeros({3});
  now.entropy = at::zeros({3});
  now.values = at::tensor({3.0f, 0.2f, -1.0f});
  const auto returns = at::tensor({4.0f, 1.0f, 0.0f});
  const auto sample_values = at::tensor({1.0f, 0.0f, 0.0f});
  const auto zeros = at::zeros({3});
  const auto l = ppo_loss(now, zeros, zeros, returns, c, {}, {}, sample_values);
  // clipped values: 1.5, 0.2, -0.5; squared errors plain (1, 0.64, 1), clipped (6.25, 0.64, 0.25)
  CHECK(l.value.item<double>() == doctest::Approx(0.5 * (6.25 + 0.64 + 1.0) / 3).epsilon(1e-5));
  c.value_clip = 0;
  const auto plain = ppo_loss(now, zeros, zeros, returns, c, {}, {}, sample_values);
  CHECK(plain.value.item<double>() == doctest::Approx(0.5 * (1 + 0.64 + 1.0) / 3).epsilon(1e-5));
}

TEST_CASE("linear learning-rate annealing falls to 0 at max_env_steps by samples trained") {
  CHECK(annealed_rate(1e-3, LearningRateAnneal::none, 500, 1000) == 1e-3);
  CHECK(annealed_rate(1e-3, LearningRateAnneal::linear, 0, 1000) == doctest::Approx(1e-3));
  CHECK(annealed_rate(1e-3, LearningRateAnneal::linear, 250, 1000) == doctest::Approx(7.5e-4));
  CHECK(annealed_rate(1e-3, LearningRateAnneal::linear, 1000, 1000) == 0.0);
  CHECK(annealed_rate(1e-3, LearningRateAnneal::linear, 3000, 1000) == 0.0);  // resumed past it
}

namespace {

// Two layers, and a parameter that is not trained (as the observation normaliser's moments).
struct SmallNet : torch::nn::Module {
  SmallNet() {
    at::manual_seed(11);
    first = register_module("first", torch::nn::Linear(3, 5));
    frozen = register_parameter("frozen", torch::ones({5}), /*requires_grad=*/false);
    second = register_module("second", torch::nn::Linear(5, 2));
  }
  at::Tensor loss(const at::Tensor& x) {
    return second->forward(at::tanh(first->forward(x)) * frozen).pow(2).sum();
  }
  torch::nn::Linear first{nullptr}, second{nullptr};
  at::Tensor frozen;
};

void check_same_parameters(SmallNet& a, SmallNet& b) {
  const auto pa = a.parameters(), pb = b.parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    CHECK(at::allclose(pa[i], pb[i], /*rtol=*/1e-5, /*atol=*/1e-6));
}

// A file the test owns, removed after it.
struct ScratchFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("dvla-optimizer-" + std::to_string(getpid()) + ".pt");
  ~ScratchFile() { std::filesystem::remove(path); }
  void write(const std::string& bytes) const { std::ofstream(path, std::ios::binary) << bytes; }
};

}  // namespace

TEST_CASE("FlatAdam steps and clips as LibTorch's Adam and clip_grad_norm_") {
  SmallNet a, b;
  FlatAdam flat(a.parameters(), 0.05, 1e-5);
  torch::optim::Adam adam(b.parameters(), torch::optim::AdamOptions(0.05).eps(1e-5));
  for (int step = 0; step < 6; ++step) {
    const auto x = at::randn({4, 3});
    if (step == 3) a.first->bias.mutable_grad() = at::ones({5});  // a gradient a caller replaced
    flat.zero_grad();
    adam.zero_grad();
    a.loss(x).backward();
    b.loss(x).backward();
    const double norm = flat.clip_grad_norm(0.1);
    CHECK(norm == doctest::Approx(torch::nn::utils::clip_grad_norm_(b.parameters(), 0.1)));
    if (step == 4) {
      flat.set_learning_rate(0.01);
      static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options()).lr(0.01);
    }
    flat.step();
    adam.step();
    check_same_parameters(a, b);
  }
  CHECK(flat.steps() == 6);
  CHECK(at::equal(a.frozen, at::ones({5})));  // not trained
}

TEST_CASE("FlatAdam's state is LibTorch Adam's optimizer.pt, read and written both ways") {
  auto train = [](SmallNet& net, auto& optimizer, int steps) {
    for (int i = 0; i < steps; ++i) {
      optimizer.zero_grad();
      net.loss(at::full({2, 3}, 0.5 + i)).backward();
      optimizer.step();
    }
  };
  ScratchFile file;
  SUBCASE("FlatAdam's state goes on in LibTorch's Adam") {
    SmallNet a, b;
    FlatAdam flat(a.parameters(), 0.05);
    train(a, flat, 3);
    for (size_t i = 0; i < a.parameters().size(); ++i) {
      at::NoGradGuard no_grad;
      b.parameters()[i].copy_(a.parameters()[i]);
    }
    auto bytes = flat.state_bytes();
    REQUIRE(bytes);
    file.write(*bytes);
    torch::optim::Adam adam(b.parameters(), torch::optim::AdamOptions(0.05));
    REQUIRE(load_optimizer(adam, file.path.string()));
    train(a, flat, 2);
    train(b, adam, 2);
    check_same_parameters(a, b);
  }
  SUBCASE("LibTorch's Adam's state goes on in FlatAdam") {
    SmallNet a, b;
    torch::optim::Adam adam(a.parameters(), torch::optim::AdamOptions(0.05));
    train(a, adam, 3);
    for (size_t i = 0; i < a.parameters().size(); ++i) {
      at::NoGradGuard no_grad;
      b.parameters()[i].copy_(a.parameters()[i]);
    }
    auto bytes = optimizer_bytes(adam);
    REQUIRE(bytes);
    file.write(*bytes);
    FlatAdam flat(b.parameters(), 0.05);
    REQUIRE(flat.load_state(file.path.string()));
    CHECK(flat.steps() == 3);
    train(a, adam, 2);
    train(b, flat, 2);
    check_same_parameters(a, b);
  }
  SUBCASE("a state of other parameters, or no file, is refused with the path") {
    torch::nn::Linear other(7, 7);
    torch::optim::Adam adam(other->parameters(), torch::optim::AdamOptions(0.05));
    other->forward(at::ones({1, 7})).sum().backward();
    adam.step();
    file.write(*optimizer_bytes(adam));
    SmallNet net;
    FlatAdam flat(net.parameters(), 0.05);
    const auto refused = flat.load_state(file.path.string());
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find(file.path.string()) != std::string::npos);
    const auto missing = flat.load_state(file.path.string() + ".missing");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message().find(".missing") != std::string::npos);
    CHECK(flat.steps() == 0);
  }
}

TEST_CASE("the MLP's tanh: ATen's values and gradient, within float rounding") {
  const auto x = at::linspace(-12, 12, 40'001).view({1, -1});  // the sigmoid form's size
  const auto exact = at::tanh(x.to(at::kDouble));
  CHECK((fast_tanh(x).to(at::kDouble) - exact).abs().max().item<double>() < 3e-7);
  const auto small = at::linspace(-3, 3, 64);  // below it: ATen's own kernel
  CHECK(at::equal(fast_tanh(small), at::tanh(small)));

  const auto leaf = x.clone().requires_grad_();
  fast_tanh(leaf).sum().backward();
  const auto slope = 1 - exact.pow(2);
  CHECK((leaf.grad().to(at::kDouble) - slope).abs().max().item<double>() < 1e-6);
  at::NoGradGuard no_grad;
  CHECK_FALSE(fast_tanh(leaf).requires_grad());
}
