#pragma once
// InvertedPendulum with the MuJoCo model, reward, termination and 1000-step limit of Gymnasium's
// InvertedPendulum-v4: keep a pole upright on a cart that a motor pushes along a rail, force in
// [-3, 3] (times the actuator's gear of 100). Observation (cart position, pole angle, cart
// velocity, pole angular velocity); reward 1 per step; the episode ends once the pole leans more
// than 0.2 rad or the state is not finite. Two physics steps of 0.02 s (RK4) per env step.
#include <memory>

#include <dvla/envs/env.hpp>
#include <dvla/envs/mujoco/xml_model.hpp>

struct mjData_;

namespace dvla::envs {

struct EnvEntry;
// InvertedPendulum's entry in the env registry (envs/env_registry.hpp): "inverted_pendulum", no
// settings.
EnvEntry inverted_pendulum_env();

class InvertedPendulum final : public Env {
 public:
  static constexpr int frame_skip = 2;           // physics steps per env step
  static constexpr double reset_noise = 0.01;    // initial qpos and qvel: uniform +- this
  static constexpr double max_pole_angle = 0.2;  // rad; beyond it the episode ends
  static constexpr int max_episode_steps = 1000;

  // The model, shared by the envs of a batch (MuJoCo only reads it while stepping).
  static std::shared_ptr<const mjModel_> load_model();

  explicit InvertedPendulum(std::shared_ptr<const mjModel_> model = load_model());
  const EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t seed, float* observation) override;
  // MuJoCo clamps the force to the actuator's control range, [-3, 3].
  StepResult step(const float* action, float* observation) override;

 private:
  struct DataDeleter {
    void operator()(mjData_* data) const;
  };
  // Writes the observation; false if some value is not finite.
  bool observe(float* observation) const;

  EnvSpec spec_;
  std::shared_ptr<const mjModel_> model_;
  std::unique_ptr<mjData_, DataDeleter> data_;
};

}  // namespace dvla::envs
