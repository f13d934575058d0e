#include <dvla/envs/tabletop/tabletop_state.hpp>

#include <cmath>

namespace dvla::envs::tabletop {

double norm(const Vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
double distance(const Vec3& a, const Vec3& b) { return norm({a.x - b.x, a.y - b.y, a.z - b.z}); }

}  // namespace dvla::envs::tabletop
