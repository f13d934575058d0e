#include <dvla/envs/inverted_pendulum.hpp>

#include <mujoco/mujoco.h>

#include <cmath>
#include <random>

#include <dvla/envs/env_batch.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/env_registry.hpp>
#include <dvla/envs/mujoco/mujoco_errors.hpp>

namespace dvla::envs {
namespace {

// Gymnasium's inverted_pendulum.xml (MIT licence): the same bodies, joints, damping, actuator
// and integrator.
constexpr const char* model_xml = R"(<mujoco model="inverted pendulum">
  <compiler inertiafromgeom="true"/>
  <default>
    <joint armature="0" damping="1" limited="true"/>
    <geom contype="0" friction="1 0.1 0.1" rgba="0.7 0.7 0 1"/>
    <motor ctrlrange="-3 3"/>
  </default>
  <option gravity="0 0 -9.81" integrator="RK4" timestep="0.02"/>
  <size nstack="3000"/>
  <worldbody>
    <geom name="rail" pos="0 0 0" quat="0.707 0 0.707 0" rgba="0.3 0.3 0.7 1" size="0.02 1"
          type="capsule"/>
    <body name="cart" pos="0 0 0">
      <joint axis="1 0 0" limited="true" name="slider" pos="0 0 0" range="-1 1" type="slide"/>
      <geom name="cart" pos="0 0 0" quat="0.707 0 0.707 0" size="0.1 0.1" type="capsule"/>
      <body name="pole" pos="0 0 0">
        <joint axis="0 1 0" name="hinge" pos="0 0 0" range="-90 90" type="hinge"/>
        <geom fromto="0 0 0 0.001 0 0.6" name="cpole" rgba="0 0.7 0.7 1" size="0.049 0.3"
              type="capsule"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor ctrllimited="true" ctrlrange="-3 3" gear="100" joint="slider" name="slide"/>
  </actuator>
</mujoco>)";

}  // namespace

void InvertedPendulum::DataDeleter::operator()(mjData_* data) const { mj_deleteData(data); }

std::shared_ptr<const mjModel_> InvertedPendulum::load_model() {
  return std::shared_ptr<const mjModel_>(load_xml_model("inverted_pendulum", model_xml));
}

InvertedPendulum::InvertedPendulum(std::shared_ptr<const mjModel_> model)
    : model_(std::move(model)) {
  data_.reset(mj_makeData(model_.get()));
  if (!data_) throw MujocoError("inverted_pendulum: cannot allocate the state (mj_makeData)");
  spec_.name = "inverted_pendulum";
  spec_.observation_shape = {model_->nq + model_->nv};
  spec_.action.type = ActionSpace::Type::continuous;
  spec_.action.dim = model_->nu;
  spec_.action.low = static_cast<float>(model_->actuator_ctrlrange[0]);
  spec_.action.high = static_cast<float>(model_->actuator_ctrlrange[1]);
  spec_.max_episode_steps = max_episode_steps;
}

void InvertedPendulum::reset(uint64_t seed, float* observation) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(-reset_noise, reset_noise);
  mj_resetData(model_.get(), data_.get());
  for (int i = 0; i < model_->nq; ++i) data_->qpos[i] = model_->qpos0[i] + noise(rng);
  for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = noise(rng);
  mj_forward(model_.get(), data_.get());
  observe(observation);
}

StepResult InvertedPendulum::step(const float* action, float* observation) {
  data_->ctrl[0] = action[0];
  for (int k = 0; k < frame_skip; ++k) mj_step(model_.get(), data_.get());
  const bool finite = observe(observation);
  StepResult r;
  r.reward = 1.0f;
  r.terminated = !finite || std::abs(data_->qpos[1]) > max_pole_angle;
  return r;
}

bool InvertedPendulum::observe(float* observation) const {
  bool finite = true;
  int k = 0;
  for (int i = 0; i < model_->nq; ++i) observation[k++] = static_cast<float>(data_->qpos[i]);
  for (int i = 0; i < model_->nv; ++i) observation[k++] = static_cast<float>(data_->qvel[i]);
  for (int i = 0; i < k; ++i) finite = finite && std::isfinite(observation[i]);
  return finite;
}

EnvEntry inverted_pendulum_env() {
  EnvEntry e;
  e.name = "inverted_pendulum";
  e.spec = [](const EnvConfig&) { return InvertedPendulum().spec(); };
  e.make = [](const EnvConfig&, size_t n) -> std::unique_ptr<BatchedEnv> {
    auto model = InvertedPendulum::load_model();
    return std::make_unique<EnvBatch>([model] { return std::make_unique<InvertedPendulum>(model); },
                                      n);
  };
  return e;
}

}  // namespace dvla::envs
