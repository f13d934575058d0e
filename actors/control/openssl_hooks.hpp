#pragma once
// The OpenSSL calls of CAF 0.17's TLS sessions (caf::openssl) that dvla takes over in every
// process with mutual TLS. CAF makes a fresh SSL_CTX per connection and offers no hook, so
// openssl_hooks.cpp defines SSL_read, SSL_write, SSL_accept, SSL_connect and SSL_free, which the
// executable's dynamic symbol table then offers libcaf_openssl before libssl's; each does what is
// below and calls OpenSSL's own. Linked into every program that starts PlaneSystems with TLS
// (plane_systems.cpp calls this), users' programs too.
//
// 1. The error queue. OpenSSL keeps one error queue per thread, and SSL_get_error() reads it:
//    "the current thread's error queue must be empty before the TLS/SSL I/O operation is
//    attempted, or SSL_get_error() will not work reliably" (OpenSSL's SSL_get_error(3)). CAF's
//    session drains the queue only in a log statement that Debian's build compiles out. So once
//    one peer's connection ended abruptly (a killed node, a rogue that hung up: OpenSSL 3 queues
//    "unexpected eof"), the next read of any other connection on that multiplexer thread was
//    taken as failed: the coordinator dropped every node's connection with the one peer that left
//    (found by test_cluster_rogue). Each call empties the calling thread's queue first.
// 2. Connections per address, and a handshake timeout. SSL_accept, which CAF calls as soon as it
//    accepted a connection, and again and again while the handshake waits for the peer, admits
//    it against accepted_tls_connections() (accepted_tls_connections.hpp) or fails the handshake,
//    which makes CAF close the socket; SSL_free gives the slot back.
namespace dvla::actors {

// Whether the hooks are in place (they are, once this is linked): PlaneSystems refuses TLS
// otherwise rather than run with connections that fail together and no bound on them.
bool openssl_hooks_in_place();

}  // namespace dvla::actors
