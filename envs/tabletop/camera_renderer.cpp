#include <dvla/envs/tabletop/camera_renderer.hpp>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <dvla/envs/mujoco/mujoco_errors.hpp>

namespace dvla::envs::tabletop {

struct CameraRenderer::Impl {
  mjvScene scene;
  mjrContext context;
  mjvOption option;
  mjvCamera cameras[2];
  std::vector<uint8_t> flipped;  // readPixels returns rows bottom-up
  bool made = false;

  Impl() {
    mjv_defaultScene(&scene);
    mjr_defaultContext(&context);
    mjv_defaultOption(&option);
  }
  ~Impl() {
    if (!made) return;
    mjr_freeContext(&context);
    mjv_freeScene(&scene);
  }
};

CameraRenderer::CameraRenderer(const Scene& scene, const CameraSettings& settings)
    : scene_(scene), settings_(settings), impl_(std::make_unique<Impl>()) {}

CameraRenderer::~CameraRenderer() = default;

Expected<std::unique_ptr<CameraRenderer>> CameraRenderer::create(const Scene& scene,
                                                                 const CameraSettings& settings) {
  if (settings.size < 16 || settings.size > 512)
    return Error("camera size " + std::to_string(settings.size) + " is outside 16..512");
  install_mujoco_error_hooks();
  std::unique_ptr<CameraRenderer> r(new CameraRenderer(scene, settings));
  auto& impl = *r->impl_;
  try {
    // A shallow copy of the model that differs only in its offscreen buffer size: 2.2.2 has no
    // mjr_resizeOffscreen, and the shared model must not change.
    mjModel sized = *scene.model();
    sized.vis.global.offwidth = std::max(settings.caption_width, settings.size);
    sized.vis.global.offheight =
        settings.caption_width > 0 ? std::max(64, settings.size) : settings.size;
    mjv_makeScene(scene.model(), &impl.scene, 200);
    mjr_makeContext(&sized, &impl.context, mjFONTSCALE_100);
    impl.made = true;
    mjr_setBuffer(mjFB_OFFSCREEN, &impl.context);
    if (impl.context.currentBuffer != mjFB_OFFSCREEN)
      return Error("the GL context has no offscreen framebuffer for MuJoCo");
  } catch (const MujocoError& e) {
    return Error(std::string("cannot set up MuJoCo rendering: ") + e.what());
  }
  impl.scene.flags[mjRND_SHADOW] = 0;
  impl.scene.flags[mjRND_REFLECTION] = 0;
  impl.scene.flags[mjRND_SKYBOX] = 0;
  const int ids[2] = {scene.ids().front_camera, scene.ids().wrist_camera};
  for (int c = 0; c < 2; ++c) {
    mjv_defaultCamera(&impl.cameras[c]);
    impl.cameras[c].type = mjCAMERA_FIXED;
    impl.cameras[c].fixedcamid = ids[c];
  }
  impl.flipped.resize(static_cast<size_t>(settings.bytes_per_camera()));
  return r;
}

Status CameraRenderer::render(mjData* data, uint8_t* out) {
  auto& impl = *impl_;
  const mjModel* m = scene_.model();
  const int n = settings_.size;
  const mjrRect viewport{0, 0, n, n};
  const size_t row = static_cast<size_t>(n) * 3;
  try {
    // Renderers of one thread share its GL context: bind this one's framebuffer every time.
    mjr_setBuffer(mjFB_OFFSCREEN, &impl.context);
    bool first = true;
    for (int c = 0; c < 2; ++c) {
      if ((c == 0 && !settings_.front) || (c == 1 && !settings_.wrist)) continue;
      // The scene's geometry is gathered once; the second camera only moves the viewpoint.
      if (first)
        mjv_updateScene(m, data, &impl.option, nullptr, &impl.cameras[c], mjCAT_ALL, &impl.scene);
      else
        mjv_updateCamera(m, data, &impl.cameras[c], &impl.scene);
      first = false;
      mjr_render(viewport, &impl.scene, &impl.context);
      mjr_readPixels(impl.flipped.data(), nullptr, viewport, &impl.context);
      for (int y = 0; y < n; ++y)
        std::memcpy(out + static_cast<size_t>(y) * row,
                    impl.flipped.data() + static_cast<size_t>(n - 1 - y) * row, row);
      out += settings_.bytes_per_camera();
    }
  } catch (const MujocoError& e) {
    return Error(std::string("rendering failed: ") + e.what());
  }
  return Status::ok();
}

Status CameraRenderer::caption(const std::string& text, int width, int height, uint8_t* out) {
  if (width > settings_.caption_width || height < 20 || height > 64)
    return Error("caption of " + std::to_string(width) + "x" + std::to_string(height) +
                 " does not fit the renderer");
  auto& impl = *impl_;
  const mjrRect viewport{0, 0, width, height};
  std::vector<uint8_t> flipped(static_cast<size_t>(width) * height * 3);
  try {
    mjr_setBuffer(mjFB_OFFSCREEN, &impl.context);
    mjr_rectangle(viewport, 0.15f, 0.15f, 0.17f, 1.f);
    mjr_overlay(mjFONT_NORMAL, mjGRID_TOPLEFT, viewport, text.c_str(), nullptr, &impl.context);
    mjr_readPixels(flipped.data(), nullptr, viewport, &impl.context);
  } catch (const MujocoError& e) {
    return Error(std::string("drawing a caption failed: ") + e.what());
  }
  const size_t row = static_cast<size_t>(width) * 3;
  for (int y = 0; y < height; ++y)
    std::memcpy(out + y * row, flipped.data() + static_cast<size_t>(height - 1 - y) * row, row);
  return Status::ok();
}

}  // namespace dvla::envs::tabletop
