#include <dvla/actors/control/openssl_hooks.hpp>

#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fmt/core.h>

#include <chrono>

#include <dvla/actors/control/accepted_tls_connections.hpp>
#include <dvla/actors/control/socket_peer.hpp>

namespace {

// OpenSSL's own definition of `name` (the next one after ours in the lookup order).
template <class Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

using dvla::actors::AcceptedTlsConnections;

// A new connection: admitted, or refused over its address's bound (said once per address).
bool open(AcceptedTlsConnections& connections, SSL* ssl,
          AcceptedTlsConnections::Clock::time_point now) {
  const int fd = SSL_get_fd(ssl);
  auto address = dvla::actors::socket_peer_host(fd);
  if (address.empty()) address = "an unknown address";
  const auto admission = connections.open(ssl, address, now);
  if (admission == AcceptedTlsConnections::Admission::refused_told)
    fmt::print(stderr,
               "dvla: refused a TLS connection from {}: {} connections from that address are open "
               "(cluster.max_connections_per_address; said once while it holds any)\n",
               dvla::actors::socket_peer(fd), connections.max_per_address());
  return admission == AcceptedTlsConnections::Admission::admitted;
}

// A connection in its handshake: ended once overdue (said once per address).
bool go_on(AcceptedTlsConnections& connections, SSL* ssl,
           AcceptedTlsConnections::Clock::time_point now) {
  const auto admission = connections.handshake(ssl, now);
  if (admission == AcceptedTlsConnections::Admission::refused_told)
    fmt::print(stderr,
               "dvla: closed a TLS connection from {}: no handshake within {} s "
               "(cluster.tls.handshake_timeout_s; said once while that address holds any)\n",
               connections.address_of(ssl),
               std::chrono::duration<double>(connections.handshake_timeout()).count());
  return admission == AcceptedTlsConnections::Admission::admitted;
}

// Whether the connection that `ssl` accepts may open, or go on with its handshake (see
// openssl_hooks.hpp, 2.).
bool admitted(SSL* ssl) {
  auto& connections = dvla::actors::accepted_tls_connections();
  const auto now = AcceptedTlsConnections::Clock::now();
  return connections.counted(ssl) ? go_on(connections, ssl, now) : open(connections, ssl, now);
}

}  // namespace

extern "C" {

int SSL_read(SSL* ssl, void* buffer, int size) {
  static const auto f = real<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return f(ssl, buffer, size);
}

int SSL_write(SSL* ssl, const void* buffer, int size) {
  static const auto f = real<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return f(ssl, buffer, size);
}

int SSL_accept(SSL* ssl) {
  static const auto f = real<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  if (!admitted(ssl)) {
    // An error on the queue makes SSL_get_error say SSL_ERROR_SSL (not the WANT_READ of the
    // handshake so far): CAF ends the connection.
    ERR_raise(ERR_LIB_USER, ERR_R_OPERATION_FAIL);
    return -1;
  }
  return f(ssl);
}

int SSL_connect(SSL* ssl) {
  static const auto f = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return f(ssl);
}

void SSL_free(SSL* ssl) {
  static const auto f = real<void (*)(SSL*)>("SSL_free");
  dvla::actors::accepted_tls_connections().close(ssl);
  f(ssl);
}

}  // extern "C"

namespace dvla::actors {

bool openssl_hooks_in_place() {
  // Ours are the definitions the process resolves to: libcaf_openssl's calls come here.
  return dlsym(RTLD_DEFAULT, "SSL_read") == reinterpret_cast<void*>(&SSL_read) &&
         dlsym(RTLD_DEFAULT, "SSL_free") == reinterpret_cast<void*>(&SSL_free);
}

}  // namespace dvla::actors
