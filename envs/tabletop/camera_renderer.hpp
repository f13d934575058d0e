#pragma once
// CameraRenderer: draws an env's front and wrist cameras into RGB bytes with MuJoCo's renderer,
// offscreen, on the GL context current on the calling thread (make one with GlContext first).
// Failures are error values with MuJoCo's or EGL's message; nothing exits the process.
#include <cstdint>
#include <memory>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/envs/tabletop/scene.hpp>

struct mjData_;
typedef struct mjData_ mjData;

namespace dvla::envs::tabletop {

struct CameraSettings {
  int size = 64;          // square images, size x size pixels
  bool front = true;      // the fixed camera facing the robot
  bool wrist = true;      // the camera on the hand
  int caption_width = 0;  // > 0: also draw captions up to this wide (dvla-render)
  int count() const { return int(front) + int(wrist); }
  int64_t bytes_per_camera() const { return int64_t{size} * size * 3; }
};

class CameraRenderer {
 public:
  static Expected<std::unique_ptr<CameraRenderer>> create(const Scene& scene,
                                                          const CameraSettings& settings);
  ~CameraRenderer();
  CameraRenderer(const CameraRenderer&) = delete;
  CameraRenderer& operator=(const CameraRenderer&) = delete;

  // Writes [cameras, size, size, 3] bytes (front first, rows top to bottom) to `out`.
  Status render(mjData* data, uint8_t* out);
  // Writes `text` in MuJoCo's font, white on dark grey, into a `width` x `height` RGB image
  // (needs settings().caption_width >= width and 20 <= height <= 64).
  Status caption(const std::string& text, int width, int height, uint8_t* out);

  const CameraSettings& settings() const { return settings_; }

 private:
  struct Impl;
  CameraRenderer(const Scene& scene, const CameraSettings& settings);
  const Scene& scene_;
  CameraSettings settings_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dvla::envs::tabletop
