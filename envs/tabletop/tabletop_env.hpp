#pragma once
// TabletopEnv: one episode at a time of one task in the tabletop scene. Physics, control, task
// rules and proprioception; no rendering (a CameraRenderer draws its mjData).
//
// Action: LIBERO's 7-D layout [dx dy dz droll dpitch dyaw grip] in [-1, 1]: translation of the
// tool point up to 3 cm per step, yaw up to 0.2 rad per step, roll and pitch ignored, grip +1
// closes the fingers and -1 opens them.
#include <memory>

#include <dvla/envs/tabletop/layout.hpp>
#include <dvla/envs/tabletop/scene.hpp>
#include <dvla/envs/tabletop/tabletop_state.hpp>

struct mjData_;
typedef struct mjData_ mjData;

namespace dvla::envs::tabletop {

constexpr int action_size = 7;
constexpr int proprio_size = 10;  // tcp xyz, sin/cos yaw, two finger positions, tcp velocity xyz

struct TabletopStep {
  float reward = 0;
  bool success = false;
  bool terminated = false;  // success ends the episode
  bool truncated = false;   // the family's horizon was reached first
  int warnings = 0;         // MuJoCo warnings during the step (e.g. a full contact buffer)
};

class TabletopEnv {
 public:
  explicit TabletopEnv(std::shared_ptr<const Scene> scene);
  ~TabletopEnv();
  TabletopEnv(const TabletopEnv&) = delete;
  TabletopEnv& operator=(const TabletopEnv&) = delete;

  void reset(const InitialState& initial);
  TabletopStep step(const float* action);

  const Task& task() const { return initial_.task; }
  const InitialState& initial_state() const { return initial_; }
  int steps() const { return steps_; }
  const TabletopState& state() const { return state_; }
  void proprioception(float* out) const;

  // Puts cube `c` at rest at `position` with `yaw` (tools and tests), then refreshes the state.
  void place_cube(Color c, const Vec3& position, double yaw);

  const Scene& scene() const { return *scene_; }
  mjData* data() { return data_; }
  const mjData* data() const { return data_; }

 private:
  void apply_action(const float* action);
  void read_state();

  std::shared_ptr<const Scene> scene_;
  mjData* data_;
  InitialState initial_;
  double target_yaw_ = 0;
  int steps_ = 0;
  TabletopState state_;
};

}  // namespace dvla::envs::tabletop
