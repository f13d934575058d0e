#include <dvla/runtime/config/cluster_address.hpp>

#include <arpa/inet.h>

#include <cctype>

namespace dvla {

Expected<ClusterAddress> parse_cluster_address(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return Error("'" + text + "' is not HOST:PORT: " + why);
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return bad("there is no ':PORT'");
  ClusterAddress a;
  a.host = text.substr(0, colon);
  const auto port = text.substr(colon + 1);
  if (a.host.empty()) return bad("the host is empty");
  if (port.empty() || port.size() > 5) return bad("the port must be a number from 0 to 65535");
  for (char ch : port)
    if (!std::isdigit(static_cast<unsigned char>(ch)))
      return bad("the port must be a number from 0 to 65535");
  const auto value = std::stoul(port);
  if (value > 65535) return bad("the port must be a number from 0 to 65535");
  a.port = static_cast<uint16_t>(value);
  return a;
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr v4{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

}  // namespace dvla
