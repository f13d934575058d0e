#include <dvla/actors/control/tls_error_queue.hpp>

#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace {

// OpenSSL's own definition of `name` (the next one after ours in the lookup order).
template <class Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
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
  return f(ssl);
}

int SSL_connect(SSL* ssl) {
  static const auto f = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return f(ssl);
}

}  // extern "C"

namespace dvla::actors {

bool tls_error_queue_cleared() {
  // Ours is the definition the process resolves to: libcaf_openssl's calls come here.
  return dlsym(RTLD_DEFAULT, "SSL_read") == reinterpret_cast<void*>(&SSL_read);
}

}  // namespace dvla::actors
