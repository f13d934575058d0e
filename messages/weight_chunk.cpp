#include <dvla/messages/weight_chunk.hpp>

#include <cstring>

#include <dvla/messages/weight_chunk.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

WeightChunkFrame build(const WeightChunk& m) {
  return WeightChunkFrame(
      codec::encode<schema::WeightChunk>(m.size + 128, [&](schema::WeightChunk::Builder b) {
        b.setVersion(m.version);
        b.setIndex(m.index);
        b.setCount(m.count);
        b.setOffset(m.offset);
        b.setTotalBytes(m.total_bytes);
        b.setChecksum(m.checksum);
        auto data = b.initData(static_cast<unsigned>(m.size));
        if (m.size > 0) std::memcpy(data.begin(), m.data, m.size);
      }));
}

Expected<WeightChunk> read(const WeightChunkFrame& f) {
  return codec::decode<schema::WeightChunk>(f.bytes(), f.kind, [](schema::WeightChunk::Reader r) {
    WeightChunk m;
    m.version = r.getVersion();
    m.index = r.getIndex();
    m.count = r.getCount();
    m.offset = r.getOffset();
    m.total_bytes = r.getTotalBytes();
    m.checksum = r.getChecksum();
    codec::require(r.hasData(), "missing field 'data'");
    auto data = r.getData();
    m.data = reinterpret_cast<const std::byte*>(data.begin());
    m.size = data.size();
    codec::require(m.count > 0 && m.index < m.count, "chunk index is not below its count");
    codec::require(m.offset <= m.total_bytes && m.size <= m.total_bytes - m.offset,
                   "chunk data runs past the end of the whole frame");
    return m;
  });
}

}  // namespace dvla::msg
