// GAE, the PPO loss and GRPO's group advantages on small hand-computed cases; flat-parameter views
// alias their buffer.
#include "doctest_with_torch.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>

#include <dvla/envs/cartpole.hpp>
#include <dvla/runtime/learners/grpo.hpp>
#include <dvla/runtime/learners/ppo.hpp>
#include <dvla/runtime/learners/training_batch.hpp>
#include <dvla/runtime/policies/actor_critic.hpp>
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
  auto gae = [&](const float* v) {
    return generalized_advantages({T, E, rewards.data(), v, terminated.data(), truncated.data(),
                                   no_truncation.data(), bootstrap.data(), 0.9f, 0.8f});
  };
  auto check = [&](const TrainingBatch& b, const std::vector<float>& v) {
    const auto expected = gae(v.data());
    REQUIRE(b.size() == T * E);
    for (int64_t i = 0; i < T * E; ++i) {
      CAPTURE(i);
      CHECK(b.values[i].item<float>() == doctest::Approx(v[i]));
      CHECK(b.advantages[i].item<float>() == doctest::Approx(expected[i]));
      CHECK(b.returns[i].item<float>() == doctest::Approx(expected[i] + v[i]));
    }
  };
  check(make_training_batch({s}, learner, 0.9f, 0.8f, 2, AdvantageValues::behaviour), values);
  // The learner's critic values every observation (the bootstrap values stay the segment's).
  const auto fresh = learner.value(PolicyInput{at::from_blob(state.data(), {T * E, 4}), {}, {}});
  const std::vector<float> learner_values(fresh.data_ptr<float>(),
                                          fresh.data_ptr<float>() + T * E);
  CHECK(learner_values != values);
  check(make_training_batch({s}, learner, 0.9f, 0.8f, 2, AdvantageValues::learner),
        learner_values);
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
