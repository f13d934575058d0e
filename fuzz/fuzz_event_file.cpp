// libFuzzer target: TensorBoard event files as dvla reads them back (TFRecord framing with its
// masked CRC-32C, then each record as a TensorBoard Event). A damaged file must be refused with
// what is wrong, never read past its end.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <dvla/runtime/tensorboard/event_file.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)dvla::tensorboard::parse_events(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
