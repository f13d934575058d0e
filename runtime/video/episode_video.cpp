#include <dvla/runtime/video/episode_video.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dvla {

EpisodeVideo::EpisodeVideo(const envs::EnvSpec& spec, size_t episodes, int scale)
    : episodes_(episodes), scale_(scale) {
  if (spec.image_shape.size() != 4 || spec.image_shape[3] != 3)
    throw std::invalid_argument("a video needs an env with camera images; " + spec.name +
                                " has none");
  if (scale < 1) throw std::invalid_argument("a video's scale is at least 1");
  cameras_ = static_cast<int>(spec.image_shape[0]);
  height_ = static_cast<int>(spec.image_shape[1]);
  width_ = static_cast<int>(spec.image_shape[2]);
}

// The cameras of one env (`images`: [cameras, height, width, 3]) into row `row` of `frame`.
void EpisodeVideo::draw(const uint8_t* images, size_t row, RgbImage& frame) const {
  for (int c = 0; c < cameras_; ++c)
    for (int y = 0; y < height_ * scale_; ++y)
      for (int x = 0; x < width_ * scale_; ++x) {
        const uint8_t* from =
            images + ((static_cast<size_t>(c) * height_ + y / scale_) * width_ + x / scale_) * 3;
        uint8_t* to =
            frame.at(c * width_ * scale_ + x, static_cast<int>(row) * height_ * scale_ + y);
        to[0] = from[0];
        to[1] = from[1];
        to[2] = from[2];
      }
}

void EpisodeVideo::record(const envs::BatchOutput& out, const std::vector<bool>& finished) {
  const size_t rows = std::min(episodes_, finished.size());
  const size_t per_env = static_cast<size_t>(cameras_) * height_ * width_ * 3;
  bool running = false;
  for (size_t i = 0; i < rows; ++i) running = running || !finished[i];
  if (!running || rows == 0) return;
  RgbImage frame = frames_.empty() ? RgbImage(cameras_ * width_ * scale_,
                                              static_cast<int>(rows) * height_ * scale_)
                                   : frames_.back();
  for (size_t i = 0; i < rows; ++i) {
    if (finished[i]) continue;
    if (!out.episode_ended(i))
      draw(out.images.data() + i * per_env, i, frame);
    else if (out.truncated[i] && out.final_images.size() >= (i + 1) * per_env)
      draw(out.final_images.data() + i * per_env, i, frame);
    // Terminated: the env keeps no last image; the previous one stands.
  }
  frames_.push_back(std::move(frame));
}

std::optional<EpisodeVideo> evaluation_video(const envs::EnvSpec& spec, size_t episodes) {
  if (spec.image_shape.size() != 4 || spec.image_shape[3] != 3 || episodes == 0)
    return std::nullopt;
  const int height = static_cast<int>(spec.image_shape[1]);
  const int scale = std::max(1, (128 + height - 1) / height);
  return EpisodeVideo(spec, episodes, scale);
}

}  // namespace dvla
