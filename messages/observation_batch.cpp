#include "messages/observation_batch.hpp"

#include "messages/codec.hpp"
#include "messages/observation_batch.capnp.h"

namespace dvla::msg {

ObservationFrame build(const ObservationBatch& m) {
  return ObservationFrame(codec::encode<schema::ObservationBatch>(
      codec::tensor_bytes(m.observations), [&](schema::ObservationBatch::Builder b) {
        b.setSamplerId(m.sampler_id);
        b.setSequence(m.sequence);
        codec::write_tensor(b.initObservations(), m.observations);
      }));
}

Expected<ObservationBatch> read(const ObservationFrame& f) {
  return codec::decode<schema::ObservationBatch>(
      f.bytes(), f.kind, [](schema::ObservationBatch::Reader r) {
        ObservationBatch m;
        m.sampler_id = r.getSamplerId();
        m.sequence = r.getSequence();
        m.observations = codec::read_tensor<float>(r.hasObservations(), r.getObservations(),
                                                   "observations", codec::any_rank);
        codec::require(m.observations.rank() >= 2,
                       "field 'observations' needs rank >= 2: [envs, obs...]");
        codec::require_finite(m.observations, "observations");
        return m;
      });
}

}  // namespace dvla::msg
