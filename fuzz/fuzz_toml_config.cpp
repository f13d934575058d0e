// libFuzzer target: TOML config files (toml11, runtime/config/toml_config.hpp) and the checks of
// the values they set against each other: any text gives a config or an error naming a line.
#include <cstddef>
#include <cstdint>
#include <string>

#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/config/toml_config.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dvla::Config config;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (dvla::load_toml_config_text(config, text, "fuzz.toml")) (void)dvla::validate(config);
  return 0;
}
