#pragma once
// What each task family counts as success, and its dense reward: staged, normalised to [0, 1),
// and exactly 1 on success. Success follows LIBERO and ManiSkill's predicates.
#include <dvla/envs/tabletop/tabletop_state.hpp>
#include <dvla/envs/tabletop/task.hpp>

namespace dvla::envs::tabletop {

// lift: A at least 6 cm up and grasped.
// push: A within 5 cm of the zone centre (xy), resting on the table.
// place_bowl: A within 5 cm of the bowl centre (xy), down in the bowl, not grasped.
// stack: A on B (xy within the cube's half-diagonal + 5 mm, height 2h +- 5 mm), A still, not
//        grasped.
bool success(const Task& task, const TabletopState& s);
float dense_reward(const Task& task, const TabletopState& s);

// Geometry the rules and the scripted expert share.
constexpr double bowl_base_top = 0.008;
constexpr double lift_height = 0.06;
constexpr double push_pose_offset = 0.04;  // the tool point 4 cm behind the cube, facing the zone

}  // namespace dvla::envs::tabletop
