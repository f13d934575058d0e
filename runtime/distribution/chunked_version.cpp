#include <dvla/runtime/distribution/chunked_version.hpp>

#include <algorithm>
#include <stdexcept>

#include <dvla/core/checksum.hpp>
#include <dvla/messages/weight_chunk.hpp>

namespace dvla {

ChunkedVersion cut_into_chunks(const msg::WeightsFrame& frame, uint64_t version,
                               size_t chunk_bytes) {
  if (chunk_bytes == 0) throw std::invalid_argument("cut_into_chunks: chunk size 0");
  ChunkedVersion out;
  out.version = version;
  out.total_bytes = frame.size();
  out.count = static_cast<uint32_t>(std::max<size_t>(1, (frame.size() + chunk_bytes - 1) / chunk_bytes));
  msg::WeightChunk chunk;
  chunk.version = version;
  chunk.count = out.count;
  chunk.total_bytes = frame.size();
  chunk.checksum = checksum64(frame.data(), frame.size());
  out.chunks.reserve(out.count);
  for (uint32_t i = 0; i < out.count; ++i) {
    chunk.index = i;
    chunk.offset = uint64_t{i} * chunk_bytes;
    chunk.data = frame.data() + chunk.offset;
    chunk.size = std::min<uint64_t>(chunk_bytes, frame.size() - chunk.offset);
    out.chunks.push_back(msg::build(chunk));
  }
  return out;
}

}  // namespace dvla
