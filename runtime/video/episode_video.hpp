#pragma once
// EpisodeVideo: what the first few envs of an evaluation batch saw, as the frames of one video.
// Each step's frame tiles the envs' camera images: a row per episode, its cameras side by side
// (the tabletop suite: front, then wrist), each scaled up `scale` times. An episode that ended
// holds its last image while the others go on. The images are the env's own observations (the
// renderer it already has), so the video shows exactly what the policy saw.
#include <cstddef>
#include <optional>
#include <vector>

#include <dvla/envs/batched_env.hpp>
#include <dvla/runtime/video/rgb_image.hpp>

namespace dvla {

class EpisodeVideo {
 public:
  // Throws std::invalid_argument for an env without images or a scale below 1.
  EpisodeVideo(const envs::EnvSpec& spec, size_t episodes, int scale);

  // After a reset or a step: `finished[i]` says env i's episode ended before this output (its
  // images now belong to a next episode, not recorded). Adds one frame while any recorded
  // episode is still running.
  void record(const envs::BatchOutput& out, const std::vector<bool>& finished);

  const std::vector<RgbImage>& frames() const { return frames_; }
  size_t episodes() const { return episodes_; }

 private:
  void draw(const uint8_t* images, size_t row, RgbImage& frame) const;

  size_t episodes_;
  int scale_, cameras_, height_, width_;
  std::vector<RgbImage> frames_;
};

// A video of an evaluation's first `episodes` episodes, its tiles at least 128 pixels high (a 32 or
// 64 pixel camera scaled up to be seen); nullopt for an env without camera images.
std::optional<EpisodeVideo> evaluation_video(const envs::EnvSpec& spec, size_t episodes);

}  // namespace dvla
