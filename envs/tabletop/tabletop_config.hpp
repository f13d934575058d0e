#pragma once
// Settings of the tabletop suite as a batched env.
#include <string>

namespace dvla::envs::tabletop {

struct TabletopConfig {
  std::string suite = "mixed";  // lift | push | place_bowl | stack | mixed
  int image_size = 64;          // 64 (RL throughput) or 128 (LIBERO's size); 16..512
  bool front_camera = true;
  bool wrist_camera = true;      // both off: no rendering at all
  int threads = 0;               // env threads, each with its own GL context; 0: one per core
  std::string physics = "fast";  // fast (4 ms x 12) | reference (2 ms x 25, condim 4)
};

}  // namespace dvla::envs::tabletop
