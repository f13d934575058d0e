#include "dvla-bench/bare_mujoco.hpp"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <dvla/envs/tabletop/gl_context.hpp>

namespace dvla::apps {

using envs::tabletop::CameraSettings;
using envs::tabletop::GlContext;
using envs::tabletop::Scene;

InputRecording::InputRecording(std::shared_ptr<const Scene> scene, size_t envs)
    : scene_(std::move(scene)), envs_(envs) {}

size_t InputRecording::input_size() const {
  const mjModel* m = scene_->model();
  return static_cast<size_t>(7 * m->nmocap + m->nu);
}

std::vector<double> InputRecording::inputs_of(const mjData* d) const {
  const mjModel* m = scene_->model();
  std::vector<double> v(d->mocap_pos, d->mocap_pos + 3 * m->nmocap);
  v.insert(v.end(), d->mocap_quat, d->mocap_quat + 4 * m->nmocap);
  v.insert(v.end(), d->ctrl, d->ctrl + m->nu);
  return v;
}

std::vector<double> InputRecording::state_of(const mjData* d) const {
  const mjModel* m = scene_->model();
  std::vector<double> v(d->qpos, d->qpos + m->nq);
  v.insert(v.end(), d->qvel, d->qvel + m->nv);
  const auto inputs = inputs_of(d);
  v.insert(v.end(), inputs.begin(), inputs.end());
  return v;
}

void InputRecording::episode_start(size_t env, const mjData* data) {
  envs_.at(env).pending_start = state_of(data);
}

void InputRecording::step(size_t env, const mjData* data, bool episode_ended) {
  auto& e = envs_.at(env);
  Step s;
  if (!episode_ended)
    s.inputs = inputs_of(data);
  else if (!e.steps.empty())
    s.inputs = e.steps.back().inputs;
  else  // the first recorded step ended an episode: the start's own inputs stand in
    s.inputs.assign(e.pending_start.end() - static_cast<long>(input_size()), e.pending_start.end());
  s.start = std::move(e.pending_start);
  e.pending_start.clear();
  e.steps.push_back(std::move(s));
  if (episode_ended) episode_start(env, data);
}

size_t InputRecording::steps() const {
  size_t fewest = envs_.empty() ? 0 : envs_[0].steps.size();
  for (const auto& e : envs_) fewest = std::min(fewest, e.steps.size());
  return fewest;
}

// MuJoCo's renderer as dvla's CameraRenderer configures it (no shadows, reflections or skybox),
// one for all envs, on a GL context of the calling thread.
struct BareMujoco::Renderer {
  CameraSettings settings;
  std::unique_ptr<GlContext> gl;
  mjvScene scene;
  mjrContext context;
  mjvOption option;
  mjvCamera cameras[2];
  std::vector<unsigned char> pixels;

  Renderer(const Scene& s, const CameraSettings& c) : settings(c) {
    auto context_or = GlContext::create_current();
    if (!context_or) throw std::runtime_error(context_or.error().message());
    gl = std::move(*context_or);
    mjv_defaultScene(&scene);
    mjr_defaultContext(&context);
    mjv_defaultOption(&option);
    mjModel sized = *s.model();
    sized.vis.global.offwidth = sized.vis.global.offheight = c.size;
    try {  // MuJoCo's errors arrive as exceptions (dvla's hooks); freeing default structs is safe
      mjv_makeScene(s.model(), &scene, 200);
      mjr_makeContext(&sized, &context, mjFONTSCALE_100);
      mjr_setBuffer(mjFB_OFFSCREEN, &context);
    } catch (...) {
      mjr_freeContext(&context);
      mjv_freeScene(&scene);
      throw;
    }
    scene.flags[mjRND_SHADOW] = scene.flags[mjRND_REFLECTION] = scene.flags[mjRND_SKYBOX] = 0;
    const int ids[2] = {s.ids().front_camera, s.ids().wrist_camera};
    for (int k = 0; k < 2; ++k) {
      mjv_defaultCamera(&cameras[k]);
      cameras[k].type = mjCAMERA_FIXED;
      cameras[k].fixedcamid = ids[k];
    }
    pixels.resize(static_cast<size_t>(c.bytes_per_camera()));
  }
  ~Renderer() {
    mjr_freeContext(&context);
    mjv_freeScene(&scene);
  }

  void render(const mjModel* m, mjData* d) {
    const mjrRect viewport{0, 0, settings.size, settings.size};
    bool first = true;
    for (int k = 0; k < 2; ++k) {
      if ((k == 0 && !settings.front) || (k == 1 && !settings.wrist)) continue;
      if (first)
        mjv_updateScene(m, d, &option, nullptr, &cameras[k], mjCAT_ALL, &scene);
      else
        mjv_updateCamera(m, d, &cameras[k], &scene);
      first = false;
      mjr_render(viewport, &scene, &context);
      mjr_readPixels(pixels.data(), nullptr, viewport, &context);
    }
  }
};

BareMujoco::BareMujoco(const InputRecording& recording, const CameraSettings& cameras)
    : scene_(recording.scene()), recording_(recording) {
  if (recording.steps() == 0) throw std::invalid_argument("the input recording has no steps");
  for (size_t e = 0; e < recording.envs(); ++e) {
    data_.push_back(mj_makeData(scene_->model()));
    if (!data_.back()) throw std::runtime_error("mj_makeData failed");
  }
  if (cameras.count() > 0) renderer_ = std::make_unique<Renderer>(*scene_, cameras);
}

BareMujoco::~BareMujoco() {
  renderer_.reset();
  for (auto* d : data_) mj_deleteData(d);
}

void BareMujoco::step(size_t k) {
  const mjModel* m = scene_->model();
  for (size_t e = 0; e < data_.size(); ++e) {
    mjData* d = data_[e];
    const auto& s = recording_.env_steps(e).at(k);
    if (!s.start.empty()) {  // as TabletopEnv::reset: from a clean state, then forward
      mj_resetData(m, d);
      const double* p = s.start.data();
      std::copy(p, p + m->nq, d->qpos);
      std::copy(p + m->nq, p + m->nq + m->nv, d->qvel);
      const double* in = p + m->nq + m->nv;
      std::copy(in, in + 3 * m->nmocap, d->mocap_pos);
      std::copy(in + 3 * m->nmocap, in + 7 * m->nmocap, d->mocap_quat);
      mj_forward(m, d);
    }
    const double* in = s.inputs.data();
    std::copy(in, in + 3 * m->nmocap, d->mocap_pos);
    std::copy(in + 3 * m->nmocap, in + 7 * m->nmocap, d->mocap_quat);
    std::copy(in + 7 * m->nmocap, in + 7 * m->nmocap + m->nu, d->ctrl);
    for (int k = 0; k < scene_->substeps(); ++k) mj_step(m, d);
    if (renderer_) renderer_->render(m, d);
  }
}

}  // namespace dvla::apps
