// libFuzzer target: the config parser (`key = value` lines, as in a config file or a config a
// coordinator sends its nodes) and the checks of the values against each other.
#include <cstddef>
#include <cstdint>
#include <string>

#include <dvla/runtime/config/config.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dvla::Config config;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (dvla::load_config_text(config, text, "fuzz")) (void)dvla::validate(config);
  return 0;
}
