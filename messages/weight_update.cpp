#include <dvla/messages/weight_update.hpp>

#include <dvla/messages/weight_update.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

int64_t ParameterEntry::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

WeightsFrame build(const WeightUpdate& m) {
  const size_t size = codec::tensor_bytes(m.flat) + 64 * m.manifest.size();
  return WeightsFrame(
      codec::encode<schema::WeightUpdate>(size, [&](schema::WeightUpdate::Builder b) {
        b.setVersion(m.version);
        auto manifest = b.initManifest(static_cast<unsigned>(m.manifest.size()));
        for (unsigned i = 0; i < m.manifest.size(); ++i) {
          const auto& e = m.manifest[i];
          auto out = manifest[i];
          out.setName(codec::text(e.name));
          auto shape = out.initShape(static_cast<unsigned>(e.shape.size()));
          for (unsigned d = 0; d < e.shape.size(); ++d)
            shape.set(d, static_cast<uint32_t>(e.shape[d]));
          out.setOffset(e.offset);
        }
        auto flat = b.initFlat(static_cast<unsigned>(codec::tensor_bytes(m.flat)));
        if (m.flat.numel() > 0) std::memcpy(flat.begin(), m.flat.data, codec::tensor_bytes(m.flat));
      }));
}

Expected<WeightUpdate> read(const WeightsFrame& f) {
  return codec::decode<schema::WeightUpdate>(f.bytes(), f.kind, [](schema::WeightUpdate::Reader r) {
    WeightUpdate m;
    m.version = r.getVersion();
    codec::require(r.hasFlat(), "missing field 'flat'");
    auto flat = r.getFlat();
    codec::require(flat.size() % sizeof(float) == 0,
                   "field 'flat' is not a whole number of float32");
    m.flat.data = reinterpret_cast<const float*>(flat.begin());
    m.flat.shape = {static_cast<int64_t>(flat.size() / sizeof(float))};
    uint64_t next = 0;
    for (auto e : r.getManifest()) {
      ParameterEntry entry;
      entry.name = codec::text(e.getName());
      uint64_t numel = 1;
      for (auto d : e.getShape()) {
        entry.shape.push_back(d);
        numel *= d;
        codec::require(numel <= static_cast<uint64_t>(m.flat.numel()),
                       "a manifest entry is larger than the flat buffer");
      }
      entry.offset = e.getOffset();
      if (entry.offset != next)
        codec::malformed("manifest entry '" + entry.name + "' starts at element " +
                         std::to_string(entry.offset) + ", expected " + std::to_string(next));
      next += numel;
      codec::require(next <= static_cast<uint64_t>(m.flat.numel()),
                     "the manifest runs past the end of the flat buffer");
      m.manifest.push_back(std::move(entry));
    }
    if (next != static_cast<uint64_t>(m.flat.numel()))
      codec::malformed("the manifest covers " + std::to_string(next) + " of " +
                       std::to_string(m.flat.numel()) + " elements of the flat buffer");
    codec::require_finite(m.flat, "flat");
    return m;
  });
}

}  // namespace dvla::msg
