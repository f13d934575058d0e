#pragma once
// Who is at the other end of a connected socket, in words for logs and per-address bounds; and
// ending this process's connections to one peer endpoint.
#include <cstddef>
#include <cstdint>
#include <string>

namespace dvla::actors {

// The peer's address ("127.0.0.1", "::1"), or "" when the socket has none (closed, not IP).
std::string socket_peer_host(int fd);
// "ADDRESS:PORT" ("[ADDRESS]:PORT" for IPv6).
std::string endpoint_text(const std::string& host, unsigned port);
// "ADDRESS:PORT" ("[ADDRESS]:PORT" for IPv6), or "an unknown address".
std::string socket_peer(int fd);

// Shuts down (both ways, without closing the descriptor) every TCP socket of this process whose
// peer is `host` ("127.0.0.1", "::1"; an IPv4 peer of an IPv6 socket matches its IPv4 form) and
// `port`; how many. The descriptor stays its owner's: whoever polls it (CAF's multiplexer) sees the
// connection end and closes it as if the peer had hung up.
size_t shut_down_connections_to(const std::string& host, uint16_t port);

}  // namespace dvla::actors
