// Logs, on the accepting side, every TLS handshake that fails, with the peer's address and why.
//
// caf::openssl (0.17) ends a failed handshake inside its session and tells only CAF's logger, which
// Debian's build compiles out, and it makes a fresh SSL_CTX per connection without a hook. So a
// coordinator could not say whom it refused. This file, linked into the apps that listen
// (dvla-ppo, dvla-node), interposes OpenSSL's SSL_new (the executable's definition comes first in
// the dynamic linker's lookup, also for libcaf_openssl): it calls the real one and gives each new
// server-side connection an info callback that reports a fatal alert sent or received before the
// handshake finished. Nothing else of OpenSSL's behaviour changes. Not in the libraries, so users'
// programs that link dvla keep OpenSSL as it is.
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <fmt/core.h>

#include <string>

#include <dvla/actors/control/accepted_tls_connections.hpp>
#include <dvla/actors/control/socket_peer.hpp>

namespace {

// The peer's address: the socket's, or once the peer is gone (a reset connection has none), the
// one it was accepted from.
std::string peer_of(const SSL* ssl) {
  const int fd = SSL_get_fd(ssl);
  if (!dvla::actors::socket_peer_host(fd).empty()) return dvla::actors::socket_peer(fd);
  const auto accepted = dvla::actors::accepted_tls_connections().address_of(ssl);
  return accepted.empty() ? "an unknown address" : accepted;
}

// Why the handshake failed: OpenSSL's reason, and what it says about the peer.
std::string reason(const SSL* ssl) {
  const unsigned long error = ERR_peek_last_error();
  std::string text = error != 0 ? ERR_reason_error_string(error) : "the connection ended";
  const int code = ERR_GET_REASON(error);
  const long verified = SSL_get_verify_result(ssl);
  if (verified != X509_V_OK)
    text += fmt::format("; its certificate: {}", X509_verify_cert_error_string(verified));
  else if (code >= SSL_AD_REASON_OFFSET)  // an alert the peer sent
    text += " (it did not accept our certificate: another CA?)";
  else if (code == SSL_R_WRONG_VERSION_NUMBER || SSL_client_version(ssl) == 0)
    text += " (what it sent is not TLS: a peer without TLS?)";
  return text;
}

// OpenSSL calls this at each step of a connection; it speaks once per refused peer, when the
// accept loop exits with an error rather than to wait for bytes.
void report_refusal(const SSL* ssl, int where, int value) {
  if (where != SSL_CB_ACCEPT_EXIT || value > 0) return;
  const int error = SSL_get_error(ssl, value);
  if (error != SSL_ERROR_SSL && error != SSL_ERROR_SYSCALL) return;
  fmt::print(stderr, "dvla: refused the TLS peer at {}: handshake failed: {}\n", peer_of(ssl),
             reason(ssl));
}

}  // namespace

extern "C" SSL* SSL_new(SSL_CTX* context) {
  using Create = SSL* (*)(SSL_CTX*);
  static const auto real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "SSL_new"));
  if (real == nullptr) return nullptr;  // OpenSSL then reports its own error to the caller
  SSL* ssl = real(context);
  if (ssl != nullptr) SSL_set_info_callback(ssl, &report_refusal);
  return ssl;
}
