// libFuzzer target: GIF decoding through giflib as dvla uses it (tests and TensorBoard's video
// summaries read back the evaluation videos): any bytes give frames or an error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <dvla/runtime/video/gif_file.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)dvla::decode_gif(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
