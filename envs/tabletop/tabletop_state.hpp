#pragma once
// TabletopState: the privileged state of one tabletop env (positions, velocities, contacts), read
// from the simulation after each step. Success predicates, rewards and the scripted expert work
// on it, never on images.
#include <array>

#include <dvla/envs/tabletop/layout.hpp>
#include <dvla/envs/tabletop/scene.hpp>

namespace dvla::envs::tabletop {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};

struct TabletopState {
  Vec3 tcp;  // tool centre point between the fingertips
  Vec3 tcp_velocity;
  double yaw = 0;             // of the hand about z
  double finger_opening = 0;  // mean finger joint position, 0 (closed) to 0.045 (open)
  std::array<Vec3, cube_count> cube;
  std::array<double, cube_count> cube_yaw{};
  std::array<Vec3, cube_count> cube_velocity;
  std::array<double, cube_count> cube_spin{};  // angular speed, rad/s
  std::array<bool, cube_count> grasped{};      // both fingers press on it with >= 0.5 N
  Vec2 bowl, zone;
};

double distance(const Vec3& a, const Vec3& b);
double norm(const Vec3& v);

}  // namespace dvla::envs::tabletop
