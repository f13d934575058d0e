#include <dvla/actors/control/socket_peer.hpp>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <memory>

namespace dvla::actors {
namespace {

struct Peer {
  std::string host;
  unsigned port = 0;
};

Peer peer_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (fd < 0 || getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, host, sizeof(host));
    return {host, ntohs(v4.sin_port)};
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof(host));
    return {host, ntohs(v6.sin6_port)};
  }
  return {};
}

// An IPv4 peer of a dual-stack socket shows as "::ffff:a.b.c.d": its IPv4 form.
std::string plain_host(const std::string& host) {
  const std::string mapped = "::ffff:";
  const bool v4_mapped =
      host.compare(0, mapped.size(), mapped) == 0 && host.find('.') != std::string::npos;
  return v4_mapped ? host.substr(mapped.size()) : host;
}

bool is_stream_socket(int fd) {
  int type = 0;
  socklen_t length = sizeof(type);
  return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_STREAM;
}

}  // namespace

std::string socket_peer_host(int fd) { return peer_of(fd).host; }

std::string endpoint_text(const std::string& host, unsigned port) {
  const auto p = std::to_string(port);
  return host.find(':') != std::string::npos ? "[" + host + "]:" + p : host + ":" + p;
}

std::string socket_peer(int fd) {
  const auto peer = peer_of(fd);
  return peer.host.empty() ? "an unknown address" : endpoint_text(peer.host, peer.port);
}

size_t shut_down_connections_to(const std::string& host, uint16_t port) {
  const std::unique_ptr<DIR, int (*)(DIR*)> fds(opendir("/proc/self/fd"), &closedir);
  if (!fds) return 0;
  const auto wanted = plain_host(host);
  size_t shut = 0;
  while (const dirent* entry = readdir(fds.get())) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(fds.get())) continue;
    if (!is_stream_socket(static_cast<int>(fd))) continue;
    const auto peer = peer_of(static_cast<int>(fd));
    if (peer.port != port || plain_host(peer.host) != wanted) continue;
    shut += shutdown(static_cast<int>(fd), SHUT_RDWR) == 0;
  }
  return shut;
}

}  // namespace dvla::actors
