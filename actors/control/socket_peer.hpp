#pragma once
// Who is at the other end of a connected socket, in words for logs and per-address bounds.
#include <string>

namespace dvla::actors {

// The peer's address ("127.0.0.1", "::1"), or "" when the socket has none (closed, not IP).
std::string socket_peer_host(int fd);
// "ADDRESS:PORT" ("[ADDRESS]:PORT" for IPv6), or "an unknown address".
std::string socket_peer(int fd);

}  // namespace dvla::actors
