#pragma once
// WeightChunk: one piece of a weight-update frame on its way between nodes' distributors. Big
// versions move in pieces so a relay passes piece i on while piece i+1 arrives, and no single
// message has to hold a whole policy; the checksum of the whole frame travels with every piece.
#include <cstddef>
#include <cstdint>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla::msg {

struct WeightChunk {
  uint64_t version = 0;
  uint32_t index = 0;
  uint32_t count = 0;
  uint64_t offset = 0;       // of `data` in the whole frame, in bytes
  uint64_t total_bytes = 0;  // of the whole frame
  uint64_t checksum = 0;     // checksum64 of the whole frame
  const std::byte* data = nullptr;  // read: points into the chunk frame, which must outlive it
  size_t size = 0;
};

WeightChunkFrame build(const WeightChunk& m);
// Checks the fields agree with each other (index < count, data inside the whole frame).
Expected<WeightChunk> read(const WeightChunkFrame& f);

}  // namespace dvla::msg
