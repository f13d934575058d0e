#pragma once
// Bytes as lowercase hex text and back (an RNG's state in a checkpoint, a nonce in a join).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla {

std::string to_hex(const void* data, size_t size);
// The error names the first pair of characters that is not a lowercase hex byte.
Expected<std::vector<uint8_t>> from_hex(const std::string& text);

}  // namespace dvla
