// Evaluation videos: GIFs through giflib round-trip; an episode video of the tabletop suite has a
// frame per step of its longest episode, its cameras side by side, and shows the arm move.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <dvla/envs/tabletop/layout.hpp>
#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/video/episode_video.hpp>
#include <dvla/runtime/video/gif_file.hpp>

using namespace dvla;

namespace {

// A frame of horizontal bands whose colours depend on `k`.
RgbImage banded(int width, int height, int k) {
  RgbImage image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      uint8_t* p = image.at(x, y);
      p[0] = static_cast<uint8_t>(40 * k + 10 * y);
      p[1] = static_cast<uint8_t>(255 - 30 * y);
      p[2] = static_cast<uint8_t>(x < width / 2 ? 0 : 200);
    }
  return image;
}

// The pixels of one row of tiles (an episode) of a video frame.
std::vector<uint8_t> tile_row(const RgbImage& frame, int row, int row_height) {
  const auto begin = frame.pixels.begin() + static_cast<long>(row) * row_height * frame.width * 3;
  return {begin, begin + static_cast<long>(row_height) * frame.width * 3};
}

size_t distinct_colours(const RgbImage& image) {
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < image.pixels.size(); i += 3)
    colours.insert(image.pixels[i] << 16 | image.pixels[i + 1] << 8 | image.pixels[i + 2]);
  return colours.size();
}

}  // namespace

TEST_CASE("a GIF decodes to the frames it was encoded from") {
  std::vector<RgbImage> frames;
  for (int k = 0; k < 4; ++k) frames.push_back(banded(24, 10, k));
  const auto bytes = encode_gif(frames, 10);
  REQUIRE(bytes);
  CHECK(bytes->rfind("GIF89a", 0) == 0);
  const auto decoded = decode_gif(*bytes);
  REQUIRE(decoded);
  REQUIRE(decoded->size() == frames.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    CAPTURE(k);
    CHECK((*decoded)[k].width == 24);
    CHECK((*decoded)[k].height == 10);
    // giflib's quantiser works on 5 bits a channel: colours come back within 8 of themselves.
    int worst = 0;
    for (size_t i = 0; i < frames[k].pixels.size(); ++i)
      worst = std::max(worst, std::abs((*decoded)[k].pixels[i] - frames[k].pixels[i]));
    CHECK(worst <= 8);
  }
}

TEST_CASE("GIF errors name what is wrong") {
  CHECK(encode_gif({}, 10).error().message() == "GIF: no frames");
  CHECK(encode_gif({banded(8, 8, 0), banded(8, 6, 1)}, 10).error().message() ==
        "GIF: a frame of 8x6 among frames of 8x8");
  CHECK(!decode_gif("not a GIF at all"));
  const auto bytes = encode_gif({banded(8, 8, 0)}, 10);
  REQUIRE(bytes);
  CHECK(!decode_gif(std::string_view(*bytes).substr(0, bytes->size() / 2)));
}

TEST_CASE("an episode video of the tabletop suite: a frame a step, cameras side by side") {
  using namespace dvla::envs::tabletop;
  TabletopConfig c;
  c.image_size = 32;
  c.threads = 1;
  TabletopBatch batch(c, 2);
  const auto lift = suite("lift").value();
  const auto solved = training_state(lift, 100), idle = training_state(lift, 101);
  batch.reset_to({solved, idle});
  ScriptedExpert expert(solved.task);  // env 0 lifts its cube; env 1 gets zero actions
  constexpr int scale = 4;
  EpisodeVideo video(batch.spec(), 2, scale);
  std::vector<bool> finished(2, false);
  video.record(batch.output(), finished);
  std::array<int, 2> lengths{0, 0};
  while (!finished[0] || !finished[1]) {
    std::array<float, 2 * action_size> actions{};
    if (!finished[0]) {
      const auto a = expert.act(batch.env(0).state());
      std::copy(a.begin(), a.end(), actions.begin());
    }
    batch.step(actions.data());
    video.record(batch.output(), finished);
    for (size_t i = 0; i < 2; ++i) {
      if (finished[i]) continue;
      ++lengths[i];
      finished[i] = batch.output().episode_ended(i);
    }
  }
  REQUIRE(lengths[0] < lengths[1]);  // the expert succeeded first
  const auto& frames = video.frames();
  REQUIRE(frames.size() == static_cast<size_t>(1 + lengths[1]));  // the start, then each step
  const int row_height = 32 * scale;
  CHECK(frames[0].width == 2 * 32 * scale);   // front and wrist camera
  CHECK(frames[0].height == 2 * row_height);  // two episodes
  CHECK(distinct_colours(frames[0]) > 20);
  // The expert's arm moved; once its episode ended its row holds its last image.
  const auto first = tile_row(frames[0], 0, row_height);
  const auto last_seen = tile_row(frames[static_cast<size_t>(lengths[0]) - 1], 0, row_height);
  CHECK(first != last_seen);
  CHECK(tile_row(frames.back(), 0, row_height) == last_seen);

  // As a GIF: the same frame count and size, decoded by giflib, not blank.
  const auto bytes = encode_gif(frames, 10);
  REQUIRE(bytes);
  const auto decoded = decode_gif(*bytes);
  REQUIRE(decoded);
  CHECK(decoded->size() == frames.size());
  CHECK(decoded->front().width == frames[0].width);
  CHECK(decoded->front().height == frames[0].height);
  CHECK(distinct_colours(decoded->front()) > 20);
  CHECK(distinct_colours(decoded->back()) > 20);
}
