#include <dvla/envs/cartpole.hpp>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <dvla/envs/env_batch.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/env_registry.hpp>
#include <dvla/envs/step_latency.hpp>

namespace dvla::envs {

CartPole::CartPole() {
  spec_.name = "cartpole";
  spec_.observation_shape = {4};
  spec_.action.type = ActionSpace::Type::discrete;
  spec_.action.choices = 2;
  spec_.max_episode_steps = max_episode_steps;
}

void CartPole::reset(uint64_t seed, float* observation) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (auto& v : state_) v = u(rng);
  observe(observation);
}

StepResult CartPole::step(const float* action, float* observation) {
  auto& [x, x_dot, theta, theta_dot] = state_;
  const double force = action[0] >= 0.5f ? force_magnitude : -force_magnitude;
  const double total_mass = mass_cart + mass_pole;
  const double pole_mass_length = mass_pole * half_pole_length;
  const double cos_t = std::cos(theta), sin_t = std::sin(theta);
  const double temp = (force + pole_mass_length * theta_dot * theta_dot * sin_t) / total_mass;
  const double theta_acc =
      (gravity * sin_t - cos_t * temp) /
      (half_pole_length * (4.0 / 3.0 - mass_pole * cos_t * cos_t / total_mass));
  const double x_acc = temp - pole_mass_length * theta_acc * cos_t / total_mass;
  x += tau * x_dot;
  x_dot += tau * x_acc;
  theta += tau * theta_dot;
  theta_dot += tau * theta_acc;
  observe(observation);
  StepResult r;
  r.reward = 1.0f;
  r.terminated = x < -x_limit || x > x_limit || theta < -theta_limit || theta > theta_limit;
  return r;
}

void CartPole::observe(float* observation) const {
  for (size_t i = 0; i < state_.size(); ++i) observation[i] = static_cast<float>(state_[i]);
}

}  // namespace dvla::envs

namespace dvla::envs {
namespace {

constexpr int64_t max_step_latency_us = 10'000'000;  // 10 s: beyond that a typo, not a simulator

Status check(const CartPoleConfig& config) {
  const auto latency = config.step_latency_us;
  if (latency < 0 || latency > max_step_latency_us)
    return Error("cartpole.step_latency_us must be 0.." + std::to_string(max_step_latency_us) +
                 ", not " + std::to_string(latency));
  return Status::ok();
}

}  // namespace

EnvEntry cartpole_env() {
  EnvEntry e;
  e.name = "cartpole";
  e.settings = [](EnvConfig& config) {
    return std::vector<Setting>{
        {"cartpole.step_latency_us",
         "cartpole: wall-clock cost of one env step, slept (a slow simulator; a batch of n sleeps "
         "n times this); 0: none",
         &config.cartpole.step_latency_us}};
  };
  e.validate = [](const EnvConfig& config) { return check(config.cartpole); };
  e.spec = [](const EnvConfig&) { return CartPole().spec(); };
  e.make = [](const EnvConfig& config, size_t n) -> std::unique_ptr<BatchedEnv> {
    if (auto ok = check(config.cartpole); !ok) throw std::invalid_argument(ok.error().message());
    auto batch = std::make_unique<EnvBatch>([] { return std::make_unique<CartPole>(); }, n);
    const auto latency = config.cartpole.step_latency_us;
    if (latency == 0) return batch;
    return std::make_unique<SlowedEnv>(std::move(batch), latency);
  };
  return e;
}

}  // namespace dvla::envs
