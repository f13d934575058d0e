#include <dvla/envs/tabletop/task_rules.hpp>

#include <algorithm>
#include <cmath>

namespace dvla::envs::tabletop {

namespace {

constexpr double h = cube_half_size;

double planar(const Vec3& p, const Vec2& q) { return std::hypot(p.x - q.x, p.y - q.y); }
double closeness(double d) { return 1.0 - std::tanh(5.0 * d); }  // 1 at 0, toward 0 far away

bool lifted(const TabletopState& s, int a) {
  return s.cube[a].z >= h + lift_height && s.grasped[a];
}

bool in_zone(const TabletopState& s, int a) {
  return planar(s.cube[a], s.zone) < 0.05 && s.cube[a].z < h + 0.005;
}

bool over_bowl(const TabletopState& s, int a) { return planar(s.cube[a], s.bowl) < 0.05; }

bool in_bowl(const TabletopState& s, int a) {
  return over_bowl(s, a) && s.cube[a].z < bowl_base_top + h + 0.01 && !s.grasped[a];
}

bool on_top(const TabletopState& s, int a, int b) {
  const double dxy = std::hypot(s.cube[a].x - s.cube[b].x, s.cube[a].y - s.cube[b].y);
  const double dz = s.cube[a].z - s.cube[b].z;
  return dxy <= std::sqrt(2.0) * h + 0.005 && std::abs(dz - 2 * h) <= 0.005;
}

bool still(const TabletopState& s, int a) {
  return norm(s.cube_velocity[a]) < 0.01 && s.cube_spin[a] < 0.5;
}

Vec3 push_pose(const TabletopState& s, int a) {
  const double dx = s.zone.x - s.cube[a].x, dy = s.zone.y - s.cube[a].y;
  const double len = std::max(std::hypot(dx, dy), 1e-9);
  return {s.cube[a].x - push_pose_offset * dx / len, s.cube[a].y - push_pose_offset * dy / len, h};
}

}  // namespace

bool success(const Task& task, const TabletopState& s) {
  const int a = static_cast<int>(task.a), b = static_cast<int>(task.b);
  switch (task.family) {
    case Family::lift:
      return lifted(s, a);
    case Family::push:
      return in_zone(s, a);
    case Family::place_bowl:
      return in_bowl(s, a);
    case Family::stack:
      return on_top(s, a, b) && still(s, a) && !s.grasped[a];
  }
  return false;
}

float dense_reward(const Task& task, const TabletopState& s) {
  if (success(task, s)) return 1.f;
  const int a = static_cast<int>(task.a), b = static_cast<int>(task.b);
  const double reach = closeness(distance(s.tcp, s.cube[a]));
  const double g = s.grasped[a] ? 1.0 : 0.0;
  const double open = std::clamp(s.finger_opening / 0.045, 0.0, 1.0);
  double r = 0;
  switch (task.family) {
    case Family::lift: {
      const double up = std::clamp((s.cube[a].z - h) / lift_height, 0.0, 1.0);
      r = (reach + g + g * up) / 4;
      break;
    }
    case Family::push: {
      const double reached = distance(s.tcp, push_pose(s, a)) < 0.03 ? 1.0 : 0.0;
      const double place = closeness(planar(s.cube[a], s.zone));
      const double flat = s.cube[a].z < h + 0.005 ? 1.0 : 0.0;
      r = (closeness(distance(s.tcp, push_pose(s, a))) + reached * place + reached * place * flat) /
          4;
      break;
    }
    case Family::place_bowl: {
      if (over_bowl(s, a) && s.cube[a].z < bowl_base_top + 3 * h + 0.06)
        r = (4 + (1 - g) + open) / 7;
      else
        r = (reach + g + g * closeness(distance(s.cube[a], {s.bowl.x, s.bowl.y, 0.1}))) / 7;
      break;
    }
    case Family::stack: {
      const Vec3 goal{s.cube[b].x, s.cube[b].y, s.cube[b].z + 2 * h};
      if (on_top(s, a, b))
        r = (6 + ((1 - g) + closeness(norm(s.cube_velocity[a]))) / 2) / 8;
      else if (s.grasped[a])
        r = (4 + closeness(distance(s.cube[a], goal))) / 8;
      else
        r = 2 * reach / 8;
      break;
    }
  }
  return static_cast<float>(std::min(r, 0.999));
}

}  // namespace dvla::envs::tabletop
