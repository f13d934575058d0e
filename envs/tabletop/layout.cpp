#include <dvla/envs/tabletop/layout.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

#include <dvla/envs/batched_env.hpp>

namespace dvla::envs::tabletop {
namespace {

constexpr uint64_t evaluation_bit = uint64_t{1} << 63;
constexpr double pi = 3.14159265358979323846;

double distance(Vec2 a, Vec2 b) { return std::hypot(a.x - b.x, a.y - b.y); }

// Distance from p to the segment a-b.
double distance_to_segment(Vec2 p, Vec2 a, Vec2 b) {
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0;
  t = std::max(0.0, std::min(1.0, t));
  return distance(p, {a.x + t * dx, a.y + t * dy});
}

class Sampler {
 public:
  explicit Sampler(uint64_t seed) : rng_(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  Vec2 point(double x0, double x1, double y0, double y1) {
    return {uniform(x0, x1), uniform(y0, y1)};
  }

 private:
  std::mt19937_64 rng_;
};

bool place_cubes(Sampler& s, Layout& l) {
  for (int c = 0; c < cube_count; ++c) {
    bool placed = false;
    for (int attempt = 0; attempt < 200 && !placed; ++attempt) {
      const Vec2 p = s.point(-0.15, 0.15, -0.2, 0.2);
      placed = distance(p, l.bowl) >= 0.13;
      for (int o = 0; o < c && placed; ++o) placed = distance(p, l.cubes[o]) >= 0.10;
      if (placed) l.cubes[c] = p;
    }
    if (!placed) return false;
    l.cube_yaw[c] = s.uniform(-pi, pi);
  }
  return true;
}

// A zone 12-18 cm from the cube, and a corridor from 7 cm behind the cube to the zone that no
// other cube and not the bowl obstructs (a stiff weld would push the hand into the bowl).
bool place_zone(Sampler& s, Layout& l, int target) {
  const Vec2 cube = l.cubes[target];
  for (int attempt = 0; attempt < 200; ++attempt) {
    const double angle = s.uniform(-pi, pi), range = s.uniform(0.12, 0.18);
    const Vec2 zone{cube.x + range * std::cos(angle), cube.y + range * std::sin(angle)};
    const Vec2 pre{cube.x - 0.07 * std::cos(angle), cube.y - 0.07 * std::sin(angle)};
    bool ok = std::abs(zone.x) <= 0.2 && std::abs(zone.y) <= 0.25 && std::abs(pre.x) <= 0.25 &&
              std::abs(pre.y) <= 0.3 && distance(zone, l.bowl) >= 0.15 &&
              distance_to_segment(l.bowl, pre, zone) >= 0.13;
    for (int o = 0; o < cube_count && ok; ++o)
      if (o != target)
        ok = distance_to_segment(l.cubes[o], pre, zone) >= 0.06 &&
             distance(l.cubes[o], zone) >= 0.08;
    if (ok) {
      l.zone = zone;
      return true;
    }
  }
  return false;
}

}  // namespace

Layout sample_layout(const Task& task, uint64_t layout_seed) {
  Sampler s(layout_seed);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    Layout l;
    l.bowl = s.point(-0.12, 0.12, -0.22, 0.22);
    if (!place_cubes(s, l)) continue;
    if (task.family == Family::push) {
      if (!place_zone(s, l, static_cast<int>(task.a))) continue;
    } else {
      // The zone is scenery here: put it where it touches nothing.
      l.zone = s.point(-0.2, 0.2, -0.25, 0.25);
    }
    l.hand = {-0.1 + s.uniform(-0.03, 0.03), s.uniform(-0.03, 0.03), 0.25 + s.uniform(-0.03, 0.03)};
    return l;
  }
  throw std::runtime_error("no layout found for " + task_name(task) + " from seed " +
                           std::to_string(layout_seed));
}

InitialState training_state(const Suite& suite, uint64_t seed) {
  if (suite.train_tasks.empty())
    throw std::invalid_argument("suite '" + suite.name + "' has no training tasks");
  const uint64_t mixed = next_seed(seed);
  InitialState s;
  s.task = suite.train_tasks[mixed % suite.train_tasks.size()];
  s.layout_seed = next_seed(mixed) & ~evaluation_bit;
  return s;
}

InitialState training_start(const Task& task, uint64_t seed) {
  return {task, next_seed(seed ^ (static_cast<uint64_t>(task_id(task)) << 32)) & ~evaluation_bit};
}

bool is_evaluation_seed(uint64_t layout_seed) { return (layout_seed & evaluation_bit) != 0; }

std::vector<InitialState> evaluation_states(const Task& task, int count) {
  std::vector<InitialState> states;
  uint64_t s =
      next_seed(0xe7a1u * 1000003u + static_cast<uint64_t>(evaluation_set_version) * 7919u +
                static_cast<uint64_t>(task_id(task)));
  for (int i = 0; i < count; ++i) {
    s = next_seed(s);
    states.push_back({task, s | evaluation_bit});
  }
  return states;
}

}  // namespace dvla::envs::tabletop
