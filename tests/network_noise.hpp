#pragma once
// What anyone who reaches a port can send without speaking dvla's protocol: random bytes, a TLS
// handshake cut off mid-way, and connections that say nothing and stay open (tests of the
// cluster's ports, test_cluster's "rogue noise" case).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dvla::test {

// A TCP connection to 127.0.0.1:port from `from` (another loopback address: a peer other than
// the honest nodes, which dial from 127.0.0.1), closed with the object; -1 when it could not
// connect.
class Connection {
 public:
  explicit Connection(uint16_t port, const char* from = "127.0.0.1")
      : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    inet_pton(AF_INET, from, &source.sin_addr);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && (bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
                     connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }
  Connection(Connection&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  Connection& operator=(Connection&&) = delete;

  bool open() const { return fd_ >= 0; }
  // Whether the other end has closed the connection (checked without waiting).
  bool closed_by_peer() const {
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    if (fd_ < 0 || poll(&p, 1, 0) != 1) return false;
    if ((p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return true;
    char byte = 0;
    return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }
  // Sends `bytes` (as much as the peer takes: it may close on us).
  void send_bytes(const std::vector<uint8_t>& bytes) const {
    if (fd_ >= 0) (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }

 private:
  int fd_;
};

// How many of `connections` the other end has closed: once `expected` are, or after 30 s.
inline size_t closed_by_peer(const std::vector<Connection>& connections, size_t expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    size_t closed = 0;
    for (const auto& c : connections) closed += c.closed_by_peer() ? 1 : 0;
    if (closed >= expected || std::chrono::steady_clock::now() > deadline) return closed;
    usleep(20000);
  }
}

inline std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

// The start of a TLS 1.2/1.3 ClientHello whose record says 512 bytes follow, and some of them.
inline std::vector<uint8_t> truncated_client_hello(std::mt19937& rng) {
  std::vector<uint8_t> out = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03};
  const auto rest = random_bytes(rng, 40);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// A process's resident memory in KiB (/proc), or 0.
inline uint64_t resident_kib(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::sscanf(line, "VmRSS: %lu kB", &kib) == 1) break;
  std::fclose(f);
  return kib;
}

}  // namespace dvla::test
