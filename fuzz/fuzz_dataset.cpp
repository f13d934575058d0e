// libFuzzer target: the demonstration dataset loader (its framing, the footer's count and
// checksum, then each message). A file cut or changed anywhere must be refused naming the file;
// the messages themselves are fuzzed by fuzz_frames too (a changed byte rarely passes the
// checksum here).
#include <cstddef>
#include <cstdint>

#include <dvla/runtime/datasets/demonstration_file.hpp>

#include "scratch_dir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = dvla::fuzz::scratch().write("dataset.dvla", data, size);
  (void)dvla::read_demonstrations(path);
  return 0;
}
