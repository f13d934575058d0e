#pragma once
// WeightUpdate: one policy version's parameters as a single flat buffer plus a manifest that says
// where each named tensor lives in it. One buffer makes an update one contiguous copy. The buffer
// is float32, or bfloat16 where the sender rounded it for the wire (distribution.wire_dtype).
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <dvla/core/enum_text.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/tensor_ref.hpp>

namespace dvla::msg {

struct ParameterEntry {
  std::string name;
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // in elements from the start of the flat buffer

  int64_t numel() const;
  bool operator==(const ParameterEntry& o) const {
    return name == o.name && shape == o.shape && offset == o.offset;
  }
};

// The element type of a frame's flat buffer.
enum class WeightPrecision { float32, bfloat16 };

struct WeightUpdate {
  uint64_t version = 0;
  std::vector<ParameterEntry> manifest;
  WeightPrecision precision = WeightPrecision::float32;
  // [total]: read from a float32 frame; to build, the float32 values (rounded when `precision`
  // is bfloat16).
  TensorRef<float> flat;
  // [total] bfloat16 bit patterns: read from a bfloat16 frame (or built from, without `flat`).
  TensorRef<uint16_t> flat_bf16;

  int64_t numel() const;  // elements of the flat buffer, in whichever precision
};

WeightsFrame build(const WeightUpdate& m);
// Checks that the manifest tiles the flat buffer exactly (in order, no gaps or overlaps) and
// that every value is finite.
Expected<WeightUpdate> read(const WeightsFrame& f);

// `f` with its flat buffer in `precision` (float32 -> bfloat16 rounds to nearest even;
// bfloat16 -> float32 is exact); `f` itself when it is in `precision` already.
Expected<WeightsFrame> with_precision(const WeightsFrame& f, WeightPrecision precision);

}  // namespace dvla::msg

namespace dvla {
template <>
struct EnumNames<msg::WeightPrecision> {
  static constexpr std::array<std::pair<msg::WeightPrecision, std::string_view>, 2> names{
      {{msg::WeightPrecision::float32, "float32"}, {msg::WeightPrecision::bfloat16, "bfloat16"}}};
};
}  // namespace dvla
