#include <dvla/messages/version_announcement.hpp>

#include <dvla/messages/version_announcement.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

VersionFrame build(const VersionAnnouncement& m) {
  return VersionFrame(
      codec::encode<schema::VersionAnnouncement>(0, [&](schema::VersionAnnouncement::Builder b) {
        b.setVersion(m.version);
        b.setSamplesTrained(m.samples_trained);
        b.setSamplesDropped(m.samples_dropped);
        b.setPolicyLagMean(m.policy_lag_mean);
      }));
}

Expected<VersionAnnouncement> read(const VersionFrame& f) {
  return codec::decode<schema::VersionAnnouncement>(
      f.bytes(), f.kind, [](schema::VersionAnnouncement::Reader r) {
        VersionAnnouncement m;
        m.version = r.getVersion();
        m.samples_trained = r.getSamplesTrained();
        m.samples_dropped = r.getSamplesDropped();
        m.policy_lag_mean = r.getPolicyLagMean();
        codec::require(std::isfinite(m.policy_lag_mean) && m.policy_lag_mean >= 0,
                       "field 'policyLagMean' is not a finite, non-negative number");
        return m;
      });
}

}  // namespace dvla::msg
