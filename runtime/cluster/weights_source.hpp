#pragma once
// WeightsSource: where a node takes its weight versions from — the distributor published by the
// learner (the root of the relay tree) or by another node (a relay), with its address on the
// weights plane. The coordinator hands each node one when it asks, and a new one when its relay is
// lost.
#include <cstdint>
#include <string>

namespace dvla {

struct WeightsSource {
  std::string name;  // "learner", or the relay node's name
  std::string host;  // empty: the coordinator's, as the node dialled it (it may listen on 0.0.0.0)
  uint16_t port = 0;

  std::string text() const;  // "name (host:port)", for the log
};

}  // namespace dvla
