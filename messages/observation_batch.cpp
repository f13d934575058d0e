#include <dvla/messages/observation_batch.hpp>

#include <dvla/messages/observation_batch.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

ObservationFrame build(const ObservationBatch& m) {
  return ObservationFrame(codec::encode<schema::ObservationBatch>(
      codec::observation_bytes(m.observations), [&](schema::ObservationBatch::Builder b) {
        b.setSamplerId(m.sampler_id);
        b.setSequence(m.sequence);
        codec::write_observations(b.initObservations(), m.observations);
      }));
}

Expected<ObservationBatch> read(const ObservationFrame& f) {
  return codec::decode<schema::ObservationBatch>(
      f.bytes(), f.kind, [](schema::ObservationBatch::Reader r) {
        ObservationBatch m;
        m.sampler_id = r.getSamplerId();
        m.sequence = r.getSequence();
        m.observations =
            codec::read_observations(r.hasObservations(), r.getObservations(), "observations", 1);
        return m;
      });
}

}  // namespace dvla::msg
