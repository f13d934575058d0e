// libFuzzer target: the checkpoint loader (manifest, config, weights, state). An input is the
// checkpoint's files, separated by "\n@@@\n": manifest.json, config.txt, weights, state.json.
// When the first byte is odd the manifest is replaced by a correct one for the other files, so
// that the fuzzer gets past the checksums into the config, weights and state readers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/storage/manifest.hpp>

#include "scratch_dir.hpp"

namespace {

constexpr std::string_view separator = "\n@@@\n";
constexpr const char* files[] = {"manifest.json", "config.txt", "weights", "state.json"};

std::vector<std::string_view> split(std::string_view input) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < std::size(files)) {
    const auto at = input.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + separator.size());
  }
  parts.push_back(input);
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool seal = data[0] & 1;
  const auto parts = split({reinterpret_cast<const char*>(data) + 1, size - 1});
  const auto& dir = dvla::fuzz::scratch().path();
  std::error_code ec;
  for (const char* file : files) std::filesystem::remove(dir / file, ec);
  dvla::Manifest manifest;
  for (size_t i = 0; i < parts.size(); ++i) {
    dvla::fuzz::scratch().write(files[i], parts[i].data(), parts[i].size());
    if (i > 0) manifest.push_back(dvla::manifest_entry(files[i], parts[i].data(), parts[i].size()));
  }
  if (seal) (void)dvla::write_manifest(dir.string(), manifest);
  (void)dvla::load_checkpoint(dir.string());
  return 0;
}
