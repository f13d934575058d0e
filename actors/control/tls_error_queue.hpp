#pragma once
// A fix for CAF 0.17's TLS sessions (caf::openssl) that every process with mutual TLS needs.
//
// OpenSSL keeps one error queue per thread, and SSL_get_error() reads it: "the current thread's
// error queue must be empty before the TLS/SSL I/O operation is attempted, or SSL_get_error()
// will not work reliably" (OpenSSL's SSL_get_error(3)). CAF's session drains the queue only in a
// log statement that Debian's build compiles out. So once one peer's connection ended abruptly
// (a killed node, a rogue that hung up: OpenSSL 3 queues "unexpected eof"), the next read of any
// other connection on that multiplexer thread was taken as failed: the coordinator dropped
// every node's connection with the one peer that left (found by test_cluster_rogue).
//
// tls_error_queue.cpp defines SSL_read, SSL_write, SSL_accept and SSL_connect, which the
// executable's dynamic symbol table then offers libcaf_openssl before libssl's: each empties the
// calling thread's queue and calls OpenSSL's own. Linked into every program that starts
// PlaneSystems with TLS (plane_systems.cpp calls this).
namespace dvla::actors {

// Whether the wrappers are in place (they are, once this is linked): PlaneSystems refuses TLS
// otherwise rather than run with connections that fail together.
bool tls_error_queue_cleared();

}  // namespace dvla::actors
