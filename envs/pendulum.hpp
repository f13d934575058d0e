#pragma once
// Pendulum with the dynamics, reward and 200-step limit of Gymnasium's Pendulum-v1: swing a
// frictionless pendulum up from a random angle and hold it upright with a torque in [-2, 2].
// Observation (cos theta, sin theta, theta_dot); reward -(theta^2 + 0.1 theta_dot^2 + 0.001 u^2)
// with theta normalised to [-pi, pi) (0: upright); no terminal state.
#include <array>

#include <dvla/envs/env.hpp>

namespace dvla::envs {

struct EnvEntry;
// Pendulum's entry in the env registry (envs/env_registry.hpp): "pendulum", no settings.
EnvEntry pendulum_env();

class Pendulum final : public Env {
 public:
  // Constants of Pendulum-v1.
  static constexpr double max_speed = 8.0;
  static constexpr double max_torque = 2.0;
  static constexpr double dt = 0.05;
  static constexpr double gravity = 10.0;
  static constexpr double mass = 1.0;
  static constexpr double length = 1.0;
  static constexpr int max_episode_steps = 200;

  using State = std::array<double, 2>;  // theta, theta_dot

  Pendulum();
  const EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t seed, float* observation) override;
  // The torque is clipped to [-2, 2], as the env's own step does.
  StepResult step(const float* action, float* observation) override;

  const State& state() const { return state_; }
  void set_state(const State& s) { state_ = s; }

 private:
  void observe(float* observation) const;

  EnvSpec spec_;
  State state_{};
};

}  // namespace dvla::envs
