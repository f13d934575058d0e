#pragma once
// ClusterAddress: where a cluster process listens or connects, parsed once from "HOST:PORT".
#include <cstdint>
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla {

struct ClusterAddress {
  std::string host;
  uint16_t port = 0;  // 0: any free port (listening only)

  std::string text() const { return host + ":" + std::to_string(port); }
};

// "HOST:PORT" (an IPv4 address or a name; PORT 0..65535). The error quotes the text and says what
// is wrong with it.
Expected<ClusterAddress> parse_cluster_address(const std::string& text);

// Whether `host` reaches this machine only: "localhost", 127.0.0.0/8 or ::1. Anything else (a
// name, another address, 0.0.0.0) may be reached, or reach us, from the network.
bool is_loopback_host(const std::string& host);

}  // namespace dvla
