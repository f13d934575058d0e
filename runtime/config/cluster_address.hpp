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

}  // namespace dvla
