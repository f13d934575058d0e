#pragma once
// ScriptedExpert: a hand-written state machine per task family that acts on privileged state.
// It shows each task is solvable through the same 7-D action interface a policy uses, and it is
// the demonstration source for supervised fine-tuning.
#include <array>

#include <dvla/envs/tabletop/tabletop_env.hpp>
#include <dvla/envs/tabletop/task.hpp>

namespace dvla::envs::tabletop {

class ScriptedExpert {
 public:
  explicit ScriptedExpert(const Task& task) { reset(task); }
  void reset(const Task& task);
  std::array<float, action_size> act(const TabletopState& s);

 private:
  enum class Phase { approach, descend, close, lift, carry, lower, release, retreat, push };
  // Where the held cube goes: over the bowl or cube B, and its centre's height at rest there.
  struct Drop {
    double x, y, rest_z;
    int under;  // cube B (stack)
  };
  Drop drop_site(const TabletopState& s) const;
  std::array<float, action_size> grasp_and_carry(const TabletopState& s);
  std::array<float, action_size> push(const TabletopState& s);

  Task task_;
  Phase phase_ = Phase::approach;
  int phase_steps_ = 0;
  double grasp_yaw_ = 0;
};

}  // namespace dvla::envs::tabletop
