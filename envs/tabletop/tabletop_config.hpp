#pragma once
// Settings of the tabletop suite as a batched env.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include <dvla/core/enum_text.hpp>

namespace dvla::envs::tabletop {

// Physics settings: fast (4 ms x 12 substeps, condim 3) for RL; reference (2 ms x 25, condim 4)
// as a fidelity check. Both give a 48-50 ms control step.
enum class Physics { fast, reference };

}  // namespace dvla::envs::tabletop

namespace dvla {

template <>
struct EnumNames<envs::tabletop::Physics> {
  static constexpr std::array<std::pair<envs::tabletop::Physics, std::string_view>, 2> names{
      {{envs::tabletop::Physics::fast, "fast"}, {envs::tabletop::Physics::reference, "reference"}}};
};

}  // namespace dvla

namespace dvla::envs::tabletop {

struct TabletopConfig {
  std::string suite = "mixed";  // lift | push | place_bowl | stack | mixed
  int image_size = 64;          // 64 (RL throughput) or 128 (LIBERO's size); 16..512
  bool front_camera = true;
  bool wrist_camera = true;  // both off: no rendering at all
  int threads = 0;           // env threads, each with its own GL context; 0: one per core
  Physics physics = Physics::fast;
};

}  // namespace dvla::envs::tabletop
