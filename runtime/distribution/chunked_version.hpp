#pragma once
// ChunkedVersion: one weight version as the chunk frames that carry it from one node's
// distributor to the next. The learner's distributor cuts each version once, and every node it
// feeds gets the same frames; a relay's grows as its chunks arrive, so it passes chunk i on while
// chunk i+1 is still on its way.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <dvla/messages/frame.hpp>

namespace dvla {

struct ChunkedVersion {
  uint64_t version = 0;
  uint32_t count = 0;        // chunks of the whole version
  uint64_t total_bytes = 0;  // of the whole weight-update frame
  std::vector<msg::WeightChunkFrame> chunks;  // those there are so far, in order

  bool complete() const { return count > 0 && chunks.size() == count; }
};

// Cuts `frame` (which holds `version`) into chunks of at most `chunk_bytes` (> 0), each carrying
// the checksum of the whole frame. One copy of the frame's bytes.
ChunkedVersion cut_into_chunks(const msg::WeightsFrame& frame, uint64_t version,
                               size_t chunk_bytes);

}  // namespace dvla
