#pragma once
// bfloat16: the upper 16 bits of a float32 (same exponent range, 8 bits of mantissa). Weights may
// cross the network in it (distribution.wire_dtype=bfloat16): half the bytes, about 3 significant
// digits. Conversions are bit operations, so any thread and any library may use them.
#include <cstdint>
#include <cstring>

namespace dvla {

// Rounds to the nearest bfloat16, ties to even; a NaN stays a NaN.
inline uint16_t to_bfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// Exact: every bfloat16 is a float32.
inline float from_bfloat16(uint16_t value) {
  const uint32_t bits = uint32_t{value} << 16;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// Neither infinite nor NaN (the exponent is not all ones).
inline bool is_finite_bfloat16(uint16_t value) { return (value & 0x7f80u) != 0x7f80u; }

}  // namespace dvla
