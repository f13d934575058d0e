#include <dvla/envs/pendulum.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include <dvla/envs/env_batch.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/env_registry.hpp>

namespace dvla::envs {
namespace {

constexpr double pi = 3.14159265358979323846;

// An angle in [-pi, pi).
double normalised(double theta) {
  return std::fmod(std::fmod(theta + pi, 2 * pi) + 2 * pi, 2 * pi) - pi;
}

}  // namespace

Pendulum::Pendulum() {
  spec_.name = "pendulum";
  spec_.observation_shape = {3};
  spec_.action.type = ActionSpace::Type::continuous;
  spec_.action.dim = 1;
  spec_.action.low = static_cast<float>(-max_torque);
  spec_.action.high = static_cast<float>(max_torque);
  spec_.max_episode_steps = max_episode_steps;
}

void Pendulum::reset(uint64_t seed, float* observation) {
  std::mt19937_64 rng(seed);
  state_[0] = std::uniform_real_distribution<double>(-pi, pi)(rng);
  state_[1] = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
  observe(observation);
}

StepResult Pendulum::step(const float* action, float* observation) {
  auto& [theta, theta_dot] = state_;
  const double u = std::clamp(static_cast<double>(action[0]), -max_torque, max_torque);
  const double angle = normalised(theta);
  const double cost = angle * angle + 0.1 * theta_dot * theta_dot + 0.001 * u * u;
  theta_dot +=
      (3 * gravity / (2 * length) * std::sin(theta) + 3.0 / (mass * length * length) * u) * dt;
  theta_dot = std::clamp(theta_dot, -max_speed, max_speed);
  theta += theta_dot * dt;
  observe(observation);
  StepResult r;
  r.reward = static_cast<float>(-cost);
  return r;
}

void Pendulum::observe(float* observation) const {
  observation[0] = static_cast<float>(std::cos(state_[0]));
  observation[1] = static_cast<float>(std::sin(state_[0]));
  observation[2] = static_cast<float>(state_[1]);
}

EnvEntry pendulum_env() {
  EnvEntry e;
  e.name = "pendulum";
  e.spec = [](const EnvConfig&) { return Pendulum().spec(); };
  e.make = [](const EnvConfig&, size_t n) -> std::unique_ptr<BatchedEnv> {
    return std::make_unique<EnvBatch>([] { return std::make_unique<Pendulum>(); }, n);
  };
  return e;
}

}  // namespace dvla::envs
