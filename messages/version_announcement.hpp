#pragma once
// VersionAnnouncement: the trainer tells the supervisor a new policy version exists.
#include <cstdint>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla::msg {

struct VersionAnnouncement {
  uint64_t version = 0;
  uint64_t samples_trained = 0;
  uint64_t samples_dropped = 0;
  double policy_lag_mean = 0;
};

VersionFrame build(const VersionAnnouncement& m);
Expected<VersionAnnouncement> read(const VersionFrame& f);

}  // namespace dvla::msg
