#pragma once
// Animated GIFs through giflib: each frame quantised to its own 256-colour map
// (GifQuantizeBuffer), played in a loop. Encoding returns the bytes (a TensorBoard image summary
// holds them as they are); decoding reads a GIF back to check it.
#include <string>
#include <string_view>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/video/rgb_image.hpp>

namespace dvla {

// Every frame must have the first one's size; `delay_cs`: hundredths of a second per frame.
Expected<std::string> encode_gif(const std::vector<RgbImage>& frames, int delay_cs);

// The same, written to `path` durably (storage/durable_file.hpp); the error names the path.
Status write_gif_file(const std::string& path, const std::vector<RgbImage>& frames, int delay_cs);

// The frames of a GIF, each as a full RGB image of the GIF's size.
Expected<std::vector<RgbImage>> decode_gif(std::string_view bytes);

}  // namespace dvla
