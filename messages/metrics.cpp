#include <dvla/messages/metrics.hpp>

#include <dvla/messages/metrics.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

MetricsFrame build(const Metrics& m) {
  return MetricsFrame(
      codec::encode<schema::Metrics>(32 * m.samples.size(), [&](schema::Metrics::Builder b) {
        b.setSource(codec::text(m.source));
        b.setTimestampNs(m.timestamp_ns);
        auto samples = b.initSamples(static_cast<unsigned>(m.samples.size()));
        for (unsigned i = 0; i < m.samples.size(); ++i) {
          samples[i].setName(codec::text(m.samples[i].first));
          samples[i].setValue(m.samples[i].second);
        }
      }));
}

Expected<Metrics> read(const MetricsFrame& f) {
  return codec::decode<schema::Metrics>(f.bytes(), f.kind, [](schema::Metrics::Reader r) {
    Metrics m;
    m.source = codec::text(r.getSource());
    m.timestamp_ns = r.getTimestampNs();
    for (auto s : r.getSamples()) {
      codec::require(std::isfinite(s.getValue()), "a sample holds a non-finite value");
      m.samples.emplace_back(codec::text(s.getName()), s.getValue());
    }
    return m;
  });
}

}  // namespace dvla::msg
