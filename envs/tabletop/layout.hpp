#pragma once
// Layouts: where the cubes, the bowl, the zone and the hand start an episode, sampled from a seed
// so the same seed always gives the same scene. Initial states pair a task with a layout seed;
// training and evaluation draw from disjoint halves of the seed space.
#include <array>
#include <cstdint>
#include <vector>

#include <dvla/envs/tabletop/scene.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/envs/tabletop/task.hpp>

namespace dvla::envs::tabletop {

struct Vec2 {
  double x = 0, y = 0;
};

struct Layout {
  std::array<Vec2, cube_count> cubes;
  std::array<double, cube_count> cube_yaw{};
  Vec2 bowl, zone;
  std::array<double, 3> hand{};  // hand body position (the tool point is 5 cm below)
};

// Rejection-samples a layout for `task`: cubes at least 10 cm apart and 13 cm from the bowl; for
// push, a zone 12-18 cm from the cube with a clear corridor to push along.
Layout sample_layout(const Task& task, uint64_t layout_seed);

struct InitialState {
  Task task;
  uint64_t layout_seed = 0;
};

// Training episodes: the task drawn from the suite's training tasks, the layout seed with its top
// bit clear. Evaluation states have it set, so training never produces an evaluation state.
InitialState training_state(const Suite& suite, uint64_t seed);
bool is_evaluation_seed(uint64_t layout_seed);
// A training start of a given task (demonstrations record these).
InitialState training_start(const Task& task, uint64_t seed);

// The fixed evaluation states of `task`: `count` of them, the same in every run of this version.
// Changing the layout sampler changes them: bump the version with it.
constexpr int evaluation_set_version = 1;
std::vector<InitialState> evaluation_states(const Task& task, int count);

}  // namespace dvla::envs::tabletop
