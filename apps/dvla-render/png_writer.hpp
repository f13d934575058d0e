#pragma once
// Writes 8-bit RGB images as PNG files (libpng).
#include <cstdint>
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla::apps {

// `rgb` holds height rows of width * 3 bytes, top row first.
Status write_png(const std::string& path, int width, int height, const uint8_t* rgb);

}  // namespace dvla::apps
