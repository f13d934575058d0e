#include <dvla/envs/tabletop/tabletop_env.hpp>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

#include <dvla/envs/mujoco/mujoco_errors.hpp>
#include <dvla/envs/tabletop/task_rules.hpp>

namespace dvla::envs::tabletop {
namespace {

constexpr double translation_per_step = 0.03;  // m at action 1
constexpr double yaw_per_step = 0.2;           // rad at action 1
constexpr double finger_open = 0.045;
constexpr double grasp_force = 0.5;  // N, per finger
// Hand (body) workspace; z keeps the fingertips 2 mm above the table.
constexpr double hand_lo[3] = {-0.3, -0.35, 0.072};
constexpr double hand_hi[3] = {0.3, 0.35, 0.35};
// The mocap target stays within this of the hand, so a blocked hand does not wind up a spring.
constexpr double max_lead = 0.05;

double clamp(double v, double lo, double hi) { return std::max(lo, std::min(hi, v)); }

double yaw_of(const mjtNum* q) {  // quaternion w x y z
  return std::atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] * q[2] + q[3] * q[3]));
}

void set_yaw_quat(mjtNum* q, double yaw) {
  q[0] = std::cos(yaw / 2);
  q[1] = q[2] = 0;
  q[3] = std::sin(yaw / 2);
}

}  // namespace

TabletopEnv::TabletopEnv(std::shared_ptr<const Scene> scene) : scene_(std::move(scene)) {
  install_mujoco_error_hooks();
  data_ = mj_makeData(scene_->model());
  if (!data_) throw MujocoError("cannot allocate the simulation state (mj_makeData)");
}

TabletopEnv::~TabletopEnv() { mj_deleteData(data_); }

void TabletopEnv::reset(const InitialState& initial) {
  const mjModel* m = scene_->model();
  const auto& ids = scene_->ids();
  initial_ = initial;
  const Layout layout = sample_layout(initial.task, initial.layout_seed);
  mj_resetData(m, data_);
  for (int c = 0; c < cube_count; ++c) {
    mjtNum* q = data_->qpos + ids.cube_qpos[c];
    q[0] = layout.cubes[c].x;
    q[1] = layout.cubes[c].y;
    q[2] = cube_half_size;  // resting exactly on the table: no settling steps needed
    set_yaw_quat(q + 3, layout.cube_yaw[c]);
  }
  mjtNum* hand = data_->qpos + ids.hand_qpos;
  mjtNum* target = data_->mocap_pos + 3 * ids.target_mocap;
  for (int k = 0; k < 3; ++k) hand[k] = target[k] = layout.hand[k];
  set_yaw_quat(hand + 3, 0);
  set_yaw_quat(data_->mocap_quat + 4 * ids.target_mocap, 0);
  target_yaw_ = 0;
  data_->qpos[ids.finger_l_qpos] = data_->qpos[ids.finger_r_qpos] = finger_open;
  data_->ctrl[0] = data_->ctrl[1] = finger_open;
  mjtNum* bowl = data_->mocap_pos + 3 * ids.bowl_mocap;
  bowl[0] = layout.bowl.x;
  bowl[1] = layout.bowl.y;
  bowl[2] = 0;
  mjtNum* zone = data_->mocap_pos + 3 * ids.zone_mocap;
  zone[0] = layout.zone.x;
  zone[1] = layout.zone.y;
  zone[2] = 0;
  mj_forward(m, data_);
  steps_ = 0;
  take_mujoco_warnings();
  read_state();
}

void TabletopEnv::apply_action(const float* action) {
  const auto& ids = scene_->ids();
  const mjtNum* hand = data_->xpos + 3 * ids.hand_body;
  mjtNum* target = data_->mocap_pos + 3 * ids.target_mocap;
  for (int k = 0; k < 3; ++k) {
    const double a = clamp(action[k], -1, 1);
    const double v =
        clamp(target[k] + translation_per_step * a, hand[k] - max_lead, hand[k] + max_lead);
    target[k] = clamp(v, hand_lo[k], hand_hi[k]);
  }
  target_yaw_ = clamp(target_yaw_ + yaw_per_step * clamp(action[5], -1, 1), -M_PI / 2, M_PI / 2);
  set_yaw_quat(data_->mocap_quat + 4 * ids.target_mocap, target_yaw_);
  const double grip = clamp(action[6], -1, 1);
  data_->ctrl[0] = data_->ctrl[1] = finger_open * (1 - grip) / 2;
}

TabletopStep TabletopEnv::step(const float* action) {
  const mjModel* m = scene_->model();
  apply_action(action);
  for (int s = 0; s < scene_->substeps(); ++s) mj_step(m, data_);
  ++steps_;
  read_state();
  TabletopStep r;
  r.success = success(initial_.task, state_);
  r.reward = dense_reward(initial_.task, state_);
  // Success ends the episode, so it pays the full reward (1) for this step and each step left to
  // the horizon: otherwise lingering just short of success (nearly 1 per step) would outscore
  // succeeding, and RL would learn to linger.
  if (r.success) r.reward = static_cast<float>(horizon(initial_.task.family) - steps_ + 1);
  r.terminated = r.success;
  r.truncated = !r.success && steps_ >= horizon(initial_.task.family);
  r.warnings = take_mujoco_warnings().count;
  return r;
}

void TabletopEnv::read_state() {
  const mjModel* m = scene_->model();
  const auto& ids = scene_->ids();
  auto& s = state_;
  const mjtNum* tcp = data_->site_xpos + 3 * ids.tcp_site;
  s.tcp = {tcp[0], tcp[1], tcp[2]};
  mjtNum velocity[6];
  mj_objectVelocity(m, data_, mjOBJ_SITE, ids.tcp_site, velocity, 0);
  s.tcp_velocity = {velocity[3], velocity[4], velocity[5]};
  s.yaw = yaw_of(data_->xquat + 4 * ids.hand_body);
  s.finger_opening = (data_->qpos[ids.finger_l_qpos] + data_->qpos[ids.finger_r_qpos]) / 2;
  for (int c = 0; c < cube_count; ++c) {
    const mjtNum* p = data_->xpos + 3 * ids.cube_body[c];
    s.cube[c] = {p[0], p[1], p[2]};
    s.cube_yaw[c] = yaw_of(data_->xquat + 4 * ids.cube_body[c]);
    const mjtNum* v = data_->qvel + ids.cube_dof[c];
    s.cube_velocity[c] = {v[0], v[1], v[2]};
    s.cube_spin[c] = std::sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
  }
  // Grasped, as ManiSkill defines it: both fingers press on the cube with at least 0.5 N.
  std::array<bool, cube_count> left{}, right{};
  for (int i = 0; i < data_->ncon; ++i) {
    const mjContact& con = data_->contact[i];
    const bool l = con.geom1 == ids.finger_l_geom || con.geom2 == ids.finger_l_geom;
    const bool r = con.geom1 == ids.finger_r_geom || con.geom2 == ids.finger_r_geom;
    if (!l && !r) continue;
    for (int c = 0; c < cube_count; ++c) {
      if (con.geom1 != ids.cube_geom[c] && con.geom2 != ids.cube_geom[c]) continue;
      mjtNum force[6];
      mj_contactForce(m, data_, i, force);
      if (force[0] < grasp_force) continue;
      (l ? left : right)[c] = true;
    }
  }
  for (int c = 0; c < cube_count; ++c) s.grasped[c] = left[c] && right[c];
  const mjtNum* bowl = data_->mocap_pos + 3 * ids.bowl_mocap;
  const mjtNum* zone = data_->mocap_pos + 3 * ids.zone_mocap;
  s.bowl = {bowl[0], bowl[1]};
  s.zone = {zone[0], zone[1]};
}

void TabletopEnv::proprioception(float* out) const {
  const auto& s = state_;
  const auto& ids = scene_->ids();
  out[0] = static_cast<float>(s.tcp.x);
  out[1] = static_cast<float>(s.tcp.y);
  out[2] = static_cast<float>(s.tcp.z);
  out[3] = static_cast<float>(std::sin(s.yaw));
  out[4] = static_cast<float>(std::cos(s.yaw));
  out[5] = static_cast<float>(data_->qpos[ids.finger_l_qpos]);
  out[6] = static_cast<float>(data_->qpos[ids.finger_r_qpos]);
  out[7] = static_cast<float>(s.tcp_velocity.x);
  out[8] = static_cast<float>(s.tcp_velocity.y);
  out[9] = static_cast<float>(s.tcp_velocity.z);
}

void TabletopEnv::place_cube(Color c, const Vec3& position, double yaw) {
  const auto& ids = scene_->ids();
  const int i = static_cast<int>(c);
  mjtNum* q = data_->qpos + ids.cube_qpos[i];
  q[0] = position.x;
  q[1] = position.y;
  q[2] = position.z;
  set_yaw_quat(q + 3, yaw);
  for (int k = 0; k < 6; ++k) data_->qvel[ids.cube_dof[i] + k] = 0;
  mj_forward(scene_->model(), data_);
  read_state();
}

}  // namespace dvla::envs::tabletop
