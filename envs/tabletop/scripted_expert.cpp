#include <dvla/envs/tabletop/scripted_expert.hpp>

#include <algorithm>
#include <cmath>

#include <dvla/envs/tabletop/task_rules.hpp>

namespace dvla::envs::tabletop {
namespace {

constexpr double h = cube_half_size;
constexpr double grasp_z = 0.022;  // tool point height for grasping and pushing (hand at its floor)
constexpr double hover_z = 0.10;
constexpr double carry_z = 0.13;
constexpr int close_steps = 6;
constexpr int release_steps = 6;

float clampf(double v) { return static_cast<float>(std::max(-1.0, std::min(1.0, v))); }

double wrap(double a) {
  while (a > M_PI) a -= 2 * M_PI;
  while (a < -M_PI) a += 2 * M_PI;
  return a;
}

// The hand yaw in [-pi/2, pi/2] that grips a cube of yaw `cube_yaw` (faces repeat every pi/2),
// nearest to the current one.
double grip_yaw(double cube_yaw, double hand_yaw) {
  double best = 0, best_error = 1e9;
  for (int k = -4; k <= 4; ++k) {
    const double y = wrap(cube_yaw + k * M_PI / 2);
    if (std::abs(y) > M_PI / 2) continue;
    if (std::abs(y - hand_yaw) < best_error) best = y, best_error = std::abs(y - hand_yaw);
  }
  return best;
}

// An action that moves the tool point toward `target` (at most `speed` of full speed), turns the
// hand toward `yaw` and sets the grip.
std::array<float, action_size> toward(const TabletopState& s, const Vec3& target, double yaw,
                                      float grip, double speed = 1.0) {
  std::array<float, action_size> a{};
  const double step = 0.03;
  const double d[3] = {target.x - s.tcp.x, target.y - s.tcp.y, target.z - s.tcp.z};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const double scale = len > speed * step ? speed * step / len : 1.0;
  for (int k = 0; k < 3; ++k) a[k] = clampf(d[k] * scale / step);
  a[5] = clampf(wrap(yaw - s.yaw) / 0.2);
  a[6] = grip;
  return a;
}

double planar(const Vec3& a, double x, double y) { return std::hypot(a.x - x, a.y - y); }

}  // namespace

void ScriptedExpert::reset(const Task& task) {
  task_ = task;
  phase_ = Phase::approach;
  phase_steps_ = 0;
  grasp_yaw_ = 0;
}

std::array<float, action_size> ScriptedExpert::act(const TabletopState& s) {
  ++phase_steps_;
  return task_.family == Family::push ? push(s) : grasp_and_carry(s);
}

ScriptedExpert::Drop ScriptedExpert::drop_site(const TabletopState& s) const {
  const int under = static_cast<int>(task_.b);
  if (task_.family == Family::place_bowl) return {s.bowl.x, s.bowl.y, bowl_base_top + h, under};
  return {s.cube[under].x, s.cube[under].y, s.cube[under].z + 2 * h, under};
}

std::array<float, action_size> ScriptedExpert::grasp_and_carry(const TabletopState& s) {
  const int a = static_cast<int>(task_.a);
  const Vec3& cube = s.cube[a];
  auto go = [&](Phase p) {
    phase_ = p;
    phase_steps_ = 0;
  };
  switch (phase_) {
    case Phase::approach: {
      grasp_yaw_ = grip_yaw(s.cube_yaw[a], s.yaw);
      if (planar(s.tcp, cube.x, cube.y) < 0.008 && std::abs(wrap(grasp_yaw_ - s.yaw)) < 0.05)
        go(Phase::descend);
      else
        return toward(s, {cube.x, cube.y, hover_z}, grasp_yaw_, -1);
      [[fallthrough]];
    }
    case Phase::descend:
      if (s.tcp.z < grasp_z + 0.006)
        go(Phase::close);
      else
        return toward(s, {cube.x, cube.y, grasp_z}, grasp_yaw_, -1);
      [[fallthrough]];
    case Phase::close:
      if (phase_steps_ <= close_steps) return toward(s, {cube.x, cube.y, grasp_z}, grasp_yaw_, 1);
      go(Phase::lift);
      [[fallthrough]];
    case Phase::lift: {
      const double top = task_.family == Family::lift ? 0.15 : carry_z;
      if (task_.family == Family::lift || s.tcp.z < top - 0.02)
        return toward(s, {s.tcp.x, s.tcp.y, top}, grasp_yaw_, 1);
      go(Phase::carry);
      [[fallthrough]];
    }
    case Phase::carry: {
      // Aim the held cube, not the tool point: correct for where the cube sits in the grip.
      const Drop d = drop_site(s);
      const bool bowl = task_.family == Family::place_bowl;
      const double goal_yaw = bowl ? grasp_yaw_ : grip_yaw(s.cube_yaw[d.under], s.yaw);
      const bool misaligned = !bowl && std::abs(wrap(s.cube_yaw[a] - s.cube_yaw[d.under])) > 0.08;
      if (planar(cube, d.x, d.y) > 0.006 || (misaligned && phase_steps_ < 25))
        return toward(s, {d.x + s.tcp.x - cube.x, d.y + s.tcp.y - cube.y, carry_z}, goal_yaw, 1,
                      0.8);
      go(Phase::lower);
      [[fallthrough]];
    }
    case Phase::lower: {
      const Drop d = drop_site(s);
      if (cube.z > d.rest_z + 0.004 && phase_steps_ < 30)
        return toward(
            s,
            {d.x + s.tcp.x - cube.x, d.y + s.tcp.y - cube.y, d.rest_z + 0.002 + s.tcp.z - cube.z},
            s.yaw, 1, 0.6);
      go(Phase::release);
      [[fallthrough]];
    }
    case Phase::release:
      if (phase_steps_ <= release_steps) return toward(s, s.tcp, s.yaw, -1);
      go(Phase::retreat);
      [[fallthrough]];
    case Phase::retreat:
      return toward(s, {s.tcp.x, s.tcp.y, carry_z}, s.yaw, -1, 0.5);
    case Phase::push:
      break;
  }
  return toward(s, s.tcp, s.yaw, -1);
}

// Closed fingers as a paddle: from a point 7 cm behind the cube, push it along the line to the
// zone at half speed; if it slides off the line, go round and line up again.
std::array<float, action_size> ScriptedExpert::push(const TabletopState& s) {
  const int a = static_cast<int>(task_.a);
  const Vec3& cube = s.cube[a];
  const double dx = s.zone.x - cube.x, dy = s.zone.y - cube.y;
  const double len = std::max(std::hypot(dx, dy), 1e-9);
  const double ux = dx / len, uy = dy / len;
  const double yaw = wrap(std::atan2(uy, ux) + M_PI / 2);  // fingers' wide side faces the push
  const double face_yaw = std::abs(yaw) > M_PI / 2 ? wrap(yaw + M_PI) : yaw;
  const Vec3 pre{cube.x - 0.07 * ux, cube.y - 0.07 * uy, grasp_z};
  // Where the tool point is relative to the push line: behind the cube, and how far aside.
  const double rx = s.tcp.x - cube.x, ry = s.tcp.y - cube.y;
  const double along = rx * ux + ry * uy, aside = std::abs(-rx * uy + ry * ux);
  auto go = [&](Phase p) {
    phase_ = p;
    phase_steps_ = 0;
  };
  if (phase_ == Phase::push && (aside > 0.02 || along > -0.02)) go(Phase::retreat);
  switch (phase_) {
    case Phase::retreat:  // rise clear of the cube before going round it
      if (s.tcp.z < 0.07) return toward(s, {s.tcp.x, s.tcp.y, 0.08}, face_yaw, 1);
      go(Phase::approach);
      [[fallthrough]];
    case Phase::approach:
      if (planar(s.tcp, pre.x, pre.y) > 0.01) return toward(s, {pre.x, pre.y, 0.08}, face_yaw, 1);
      go(Phase::descend);
      [[fallthrough]];
    case Phase::descend:
      if (s.tcp.z > grasp_z + 0.006) return toward(s, pre, face_yaw, 1);
      go(Phase::push);
      [[fallthrough]];
    default: {
      // Advance toward the point short of the zone where the cube's centre lands on the zone's,
      // steering sideways back onto the line behind the cube.
      const double contact = h + 0.014;  // tool point to cube centre when pushing
      const Vec3 goal{s.zone.x - contact * ux, s.zone.y - contact * uy, grasp_z};
      const double cx = cube.x - contact * ux - s.tcp.x, cy = cube.y - contact * uy - s.tcp.y;
      const double ahead = cx * ux + cy * uy;
      return toward(s, {goal.x + cx - ahead * ux, goal.y + cy - ahead * uy, grasp_z}, face_yaw, 1,
                    0.5);
    }
  }
}

}  // namespace dvla::envs::tabletop
