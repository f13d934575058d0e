#include <dvla/actors/control/socket_peer.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace dvla::actors {
namespace {

struct Peer {
  std::string host;
  unsigned port = 0;
  bool v6 = false;
};

Peer peer_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (fd < 0 || getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, host, sizeof(host));
    return {host, ntohs(v4.sin_port), false};
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof(host));
    return {host, ntohs(v6.sin6_port), true};
  }
  return {};
}

}  // namespace

std::string socket_peer_host(int fd) { return peer_of(fd).host; }

std::string socket_peer(int fd) {
  const auto peer = peer_of(fd);
  if (peer.host.empty()) return "an unknown address";
  const auto port = std::to_string(peer.port);
  return peer.v6 ? "[" + peer.host + "]:" + port : peer.host + ":" + port;
}

}  // namespace dvla::actors
