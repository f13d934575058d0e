#include <dvla/messages/weight_update.hpp>

#include <dvla/core/bfloat16.hpp>
#include <dvla/messages/weight_update.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {
namespace {

size_t element_bytes(WeightPrecision p) {
  return p == WeightPrecision::bfloat16 ? sizeof(uint16_t) : sizeof(float);
}

// Writes the flat buffer of `m` in its precision into `out` (numel elements).
void write_flat(const WeightUpdate& m, kj::byte* out) {
  const int64_t n = m.numel();
  if (n == 0) return;
  if (m.precision == WeightPrecision::float32) {
    std::memcpy(out, m.flat.data, n * sizeof(float));
  } else if (m.flat.data) {
    auto* bf16 = reinterpret_cast<uint16_t*>(out);
    for (int64_t i = 0; i < n; ++i) bf16[i] = to_bfloat16(m.flat.data[i]);
  } else {
    std::memcpy(out, m.flat_bf16.data, n * sizeof(uint16_t));
  }
}

void require_finite_bf16(const TensorRef<uint16_t>& t) {
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i)
    if (!is_finite_bfloat16(t.data[i]))
      codec::malformed("field 'flat' holds a non-finite bfloat16 value at element " +
                       std::to_string(i));
}

}  // namespace

int64_t ParameterEntry::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

int64_t WeightUpdate::numel() const {
  if (precision == WeightPrecision::bfloat16 && !flat.data) return flat_bf16.numel();
  return flat.numel();
}

WeightsFrame build(const WeightUpdate& m) {
  const size_t flat_bytes = static_cast<size_t>(m.numel()) * element_bytes(m.precision);
  const size_t size = flat_bytes + 64 * m.manifest.size();
  return WeightsFrame(
      codec::encode<schema::WeightUpdate>(size, [&](schema::WeightUpdate::Builder b) {
        b.setVersion(m.version);
        b.setPrecision(m.precision == WeightPrecision::bfloat16
                           ? schema::WeightUpdate::Precision::BFLOAT16
                           : schema::WeightUpdate::Precision::FLOAT32);
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
        write_flat(m, b.initFlat(static_cast<unsigned>(flat_bytes)).begin());
      }));
}

Expected<WeightUpdate> read(const WeightsFrame& f) {
  return codec::decode<schema::WeightUpdate>(f.bytes(), f.kind, [](schema::WeightUpdate::Reader r) {
    WeightUpdate m;
    m.version = r.getVersion();
    switch (r.getPrecision()) {
      case schema::WeightUpdate::Precision::FLOAT32: m.precision = WeightPrecision::float32; break;
      case schema::WeightUpdate::Precision::BFLOAT16:
        m.precision = WeightPrecision::bfloat16;
        break;
      default: codec::malformed("field 'precision' holds an unknown value");
    }
    codec::require(r.hasFlat(), "missing field 'flat'");
    auto flat = r.getFlat();
    const size_t element = element_bytes(m.precision);
    codec::require(flat.size() % element == 0,
                   m.precision == WeightPrecision::bfloat16
                       ? "field 'flat' is not a whole number of bfloat16"
                       : "field 'flat' is not a whole number of float32");
    const int64_t total = static_cast<int64_t>(flat.size() / element);
    if (m.precision == WeightPrecision::bfloat16)
      m.flat_bf16 = {reinterpret_cast<const uint16_t*>(flat.begin()), {total}};
    else
      m.flat = {reinterpret_cast<const float*>(flat.begin()), {total}};
    uint64_t next = 0;
    for (auto e : r.getManifest()) {
      ParameterEntry entry;
      entry.name = codec::text(e.getName());
      uint64_t numel = 1;
      for (auto d : e.getShape()) {
        entry.shape.push_back(d);
        numel *= d;
        codec::require(numel <= static_cast<uint64_t>(total),
                       "a manifest entry is larger than the flat buffer");
      }
      entry.offset = e.getOffset();
      if (entry.offset != next)
        codec::malformed("manifest entry '" + entry.name + "' starts at element " +
                         std::to_string(entry.offset) + ", expected " + std::to_string(next));
      next += numel;
      codec::require(next <= static_cast<uint64_t>(total),
                     "the manifest runs past the end of the flat buffer");
      m.manifest.push_back(std::move(entry));
    }
    if (next != static_cast<uint64_t>(total))
      codec::malformed("the manifest covers " + std::to_string(next) + " of " +
                       std::to_string(total) + " elements of the flat buffer");
    if (m.precision == WeightPrecision::bfloat16)
      require_finite_bf16(m.flat_bf16);
    else
      codec::require_finite(m.flat, "flat");
    return m;
  });
}

Expected<WeightsFrame> with_precision(const WeightsFrame& f, WeightPrecision precision) {
  auto update = read(f);
  if (!update) return update.error();
  if (update->precision == precision) return f;
  std::vector<float> widened;
  if (update->precision == WeightPrecision::bfloat16) {  // to float32: exact
    widened.resize(static_cast<size_t>(update->numel()));
    for (size_t i = 0; i < widened.size(); ++i)
      widened[i] = from_bfloat16(update->flat_bf16.data[i]);
    update->flat = {widened.data(), {static_cast<int64_t>(widened.size())}};
    update->flat_bf16 = {};
  }
  update->precision = precision;
  return build(*update);
}

}  // namespace dvla::msg
