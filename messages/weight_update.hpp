#pragma once
// WeightUpdate: one policy version's parameters as a single flat float32 buffer plus a manifest
// that says where each named tensor lives in it. One buffer makes an update one contiguous copy.
#include <cstdint>
#include <string>
#include <vector>

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

struct WeightUpdate {
  uint64_t version = 0;
  std::vector<ParameterEntry> manifest;
  TensorRef<float> flat;  // [total]
};

WeightsFrame build(const WeightUpdate& m);
// Checks that the manifest tiles the flat buffer exactly (in order, no gaps or overlaps).
Expected<WeightUpdate> read(const WeightsFrame& f);

}  // namespace dvla::msg
