#pragma once
// The TLS connections a process accepted: at most cluster.max_connections_per_address from one
// peer address, each to finish its handshake within cluster.tls.handshake_timeout_s.
//
// CAF 0.17 accepts every TCP connection on a published port, keeps it until the peer hangs up (no
// bound, no handshake timeout), and while a connection's TLS handshake waits for the peer, its
// multiplexer thread spins on it (a full core, measured: docs/multi-node.md). So anyone who
// reaches a port could hold thousands of connections, and one idle connection would keep a core
// busy for as long as it stays. The accepting side refuses the handshake of a connection over
// the bound and ends one whose handshake is overdue; CAF then closes it, and a session's slot is
// free again once CAF frees it.
//
// CAF opens the sessions without a hook for us, so openssl_hooks.cpp (which interposes the
// OpenSSL calls CAF makes) keeps this, in the one instance of the process:
// accepted_tls_connections(). Connections without TLS (loopback only, or cluster.insecure) are not
// counted.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dvla::actors {

class AcceptedTlsConnections {
 public:
  using Clock = std::chrono::steady_clock;

  enum class Admission {
    admitted,
    refused,       // over the bound, or its handshake is overdue
    refused_told,  // the same, for the first time while its address holds connections: say so
  };

  AcceptedTlsConnections(size_t max_per_address, Clock::duration handshake_timeout)
      : max_per_address_(max_per_address), handshake_timeout_(handshake_timeout) {}

  // A connection `session` from `address` opens at `now`: counted when admitted.
  Admission open(const void* session, const std::string& address, Clock::time_point now);
  // Its handshake goes on at `now`: refused once it has taken longer than the timeout.
  Admission handshake(const void* session, Clock::time_point now);
  // The connection `session` closed; nothing for one not counted.
  void close(const void* session);

  bool counted(const void* session) const;
  void set_bounds(size_t max_per_address, Clock::duration handshake_timeout);
  size_t max_per_address() const;
  Clock::duration handshake_timeout() const;
  size_t open_from(const std::string& address) const;
  std::string address_of(const void* session) const;  // "" for one not counted
  uint64_t refused() const;  // connections refused or ended since the process started

 private:
  struct Peer {
    size_t open = 0;
    bool bound_told = false;    // said once while the address holds connections
    bool timeout_told = false;  // (a peer that cycles them is told once per cycle)
  };
  struct Session {
    std::string address;
    Clock::time_point opened;
  };
  Admission refuse(bool& told);

  mutable std::mutex mutex_;
  size_t max_per_address_;
  Clock::duration handshake_timeout_;
  std::unordered_map<const void*, Session> sessions_;
  std::unordered_map<std::string, Peer> peers_;  // only addresses with open connections
  uint64_t refused_ = 0;
};

// This process's accepted TLS connections (see above: why there is one per process).
AcceptedTlsConnections& accepted_tls_connections();

}  // namespace dvla::actors
