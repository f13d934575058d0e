#pragma once
// The bound on the tabletop env: the same MuJoCo model stepped with mj_step (the same substeps)
// and the same cameras drawn with mjv_updateScene + mjr_render + mjr_readPixels, in a loop with
// no dvla code in it. The loop replays the mocap targets and finger controls that dvla's envs
// applied (InputRecording), so its motion and contacts, and so its solver work, are the same.
#include <cstddef>
#include <memory>
#include <vector>

#include <dvla/envs/tabletop/camera_renderer.hpp>
#include <dvla/envs/tabletop/scene.hpp>

struct mjData_;
typedef struct mjData_ mjData;

namespace dvla::apps {

// What each env of a batch applied in each step: the mocap bodies' poses and the controls, read
// after the step, and the state each episode started from.
class InputRecording {
 public:
  InputRecording(std::shared_ptr<const envs::tabletop::Scene> scene, size_t envs);

  // Env `env` starts (or is found at) the state in `data`: its next step replays from there.
  void episode_start(size_t env, const mjData* data);
  // Env `env` made a step; `data` is read after it. When the step ended the episode, `data`
  // already holds the next episode's start (the batch resets at once), so the step replays the
  // env's previous inputs and the start is kept for the step after.
  void step(size_t env, const mjData* data, bool episode_ended);

  const std::shared_ptr<const envs::tabletop::Scene>& scene() const { return scene_; }
  size_t envs() const { return envs_.size(); }
  size_t steps() const;  // the fewest steps any env recorded: what a replay round covers

  struct Step {
    std::vector<double> inputs;  // mocap_pos, mocap_quat, ctrl
    std::vector<double> start;   // empty, or qpos, qvel, then inputs: the episode starts here
  };
  const std::vector<Step>& env_steps(size_t env) const { return envs_[env].steps; }

 private:
  struct Env {
    std::vector<Step> steps;
    std::vector<double> pending_start;  // for the env's next step
  };
  size_t input_size() const;
  std::vector<double> inputs_of(const mjData* data) const;
  std::vector<double> state_of(const mjData* data) const;

  std::shared_ptr<const envs::tabletop::Scene> scene_;
  std::vector<Env> envs_;
};

// Replays a recording on one thread: one mjData per recorded env, and with cameras one GL
// context, scene and offscreen buffer shared by all of them (the least a renderer needs).
class BareMujoco {
 public:
  // `cameras.count() == 0`: physics only. Throws std::runtime_error when EGL or MuJoCo's renderer
  // cannot be set up.
  BareMujoco(const InputRecording& recording, const envs::tabletop::CameraSettings& cameras);
  ~BareMujoco();
  BareMujoco(const BareMujoco&) = delete;
  BareMujoco& operator=(const BareMujoco&) = delete;

  // Every env replays its recorded step `k` (an episode's first step restores its start).
  void step(size_t k);

 private:
  struct Renderer;

  std::shared_ptr<const envs::tabletop::Scene> scene_;
  const InputRecording& recording_;
  std::vector<mjData*> data_;
  std::unique_ptr<Renderer> renderer_;
};

}  // namespace dvla::apps
