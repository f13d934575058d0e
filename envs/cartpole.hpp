#pragma once
// CartPole with the dynamics, termination rule and 500-step limit of Gym's CartPole-v1: a pole on
// a cart, pushed left (action 0) or right (action 1) with 10 N; reward 1 per step.
#include <array>
#include <cstdint>
#include <random>

#include <dvla/envs/env.hpp>

namespace dvla::envs {

struct EnvEntry;

struct CartPoleConfig {
  // Wall time per env step, spent sleeping (envs/step_latency.hpp): a slow simulator on purpose.
  int64_t step_latency_us = 0;
};

// CartPole's entry in the env registry (envs/env_registry.hpp): "cartpole", with its settings
// under cartpole.*.
EnvEntry cartpole_env();

class CartPole final : public Env {
 public:
  // Physical constants of CartPole-v1.
  static constexpr double gravity = 9.8;
  static constexpr double mass_cart = 1.0;
  static constexpr double mass_pole = 0.1;
  static constexpr double half_pole_length = 0.5;
  static constexpr double force_magnitude = 10.0;
  static constexpr double tau = 0.02;  // seconds per step, explicit Euler
  static constexpr double theta_limit = 12.0 * 2.0 * 3.14159265358979323846 / 360.0;
  static constexpr double x_limit = 2.4;
  static constexpr int max_episode_steps = 500;

  using State = std::array<double, 4>;  // x, x_dot, theta, theta_dot

  CartPole();
  const EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t seed, float* observation) override;
  StepResult step(const float* action, float* observation) override;

  const State& state() const { return state_; }
  void set_state(const State& s) { state_ = s; }

 private:
  void observe(float* observation) const;

  EnvSpec spec_;
  State state_{};
};

}  // namespace dvla::envs
