#pragma once
// An 8-bit RGB image: rows of width * 3 bytes, top row first.
#include <cstdint>
#include <vector>

namespace dvla {

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // height * width * 3

  RgbImage() = default;
  RgbImage(int w, int h) : width(w), height(h), pixels(static_cast<size_t>(w) * h * 3, 0) {}
  uint8_t* at(int x, int y) { return pixels.data() + (static_cast<size_t>(y) * width + x) * 3; }
  const uint8_t* at(int x, int y) const {
    return pixels.data() + (static_cast<size_t>(y) * width + x) * 3;
  }
};

}  // namespace dvla
