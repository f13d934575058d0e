#pragma once
// PlaneSystems: a process's CAF actor systems for the planes. Split, each plane has an actor
// system of its own, with its own middleman: its own port, connections and network thread, so
// between processes control traffic never queues behind data bytes on a connection. Weight
// versions, control-plane traffic in the design, get a third system of their own: a transfer of
// hundreds of MB in chunks neither waits behind segments nor delays a control round trip. Shared,
// one system serves all (one connection per peer). All have dvla's message types and the
// middleman loaded. `dvla-bench planes` measures the difference.
//
// A handle must cross on the connection of its own system (actor ids are per system): an actor
// reached over the weights plane is spawned on weights() and asked from there.
//
// Across nodes (a multi-node run) both systems send heartbeats and declare a silent peer lost
// after the connection timeout; with certificates configured every connection is mutual TLS
// (caf::openssl), and publish/connect here choose the transport so that callers cannot mix them.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>

#include <memory>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla::actors {

struct NetworkOptions {
  double heartbeat_interval_s = 0;  // 0: no heartbeats (one process, or a benchmark)
  double connection_timeout_s = 0;
  std::string tls_certificate, tls_key, tls_cafile;  // all three: mutual TLS; none: plain TCP
  // With TLS: the connections this process holds from one peer address, and how long one may take
  // for its handshake (accepted_tls_connections.hpp); set for the whole process by the last
  // PlaneSystems started.
  size_t max_connections_per_address = 64;
  double tls_handshake_timeout_s = 10;

  // A multi-node run's settings (cluster.*).
  static NetworkOptions of(const ClusterConfig& cluster);

  bool tls() const { return !tls_certificate.empty(); }
};

class PlaneSystems {
 public:
  // Throws dvla::Failure when an actor system cannot start (e.g. a certificate cannot be read).
  PlaneSystems(bool split, size_t scheduler_threads, NetworkOptions network = {});
  ~PlaneSystems();
  PlaneSystems(const PlaneSystems&) = delete;
  PlaneSystems& operator=(const PlaneSystems&) = delete;

  bool split() const { return control_ != nullptr; }
  bool tls() const { return network_.tls(); }
  caf::actor_system& data() { return *data_; }
  caf::actor_system& control() { return control_ ? *control_ : *data_; }
  caf::actor_system& weights() { return weights_ ? *weights_ : *data_; }

  // Publishes `actor` (of the system of its plane) on host:port (port 0: a free one), with its
  // typed interface; the port, or an error naming the address.
  template <class Handle>
  Expected<uint16_t> publish(const Handle& actor, const std::string& host, uint16_t port) {
    auto published = tls() ? caf::openssl::publish(actor, port, host.c_str(), /*reuse=*/true)
                           : actor.home_system().middleman().publish(actor, port, host.c_str(),
                                                                     /*reuse=*/true);
    if (!published)
      return Error("cannot listen on " + host + ":" + std::to_string(port) + ": " +
                   actor.home_system().render(published.error()));
    return *published;
  }

  // The actor published at host:port, reached from `system`; its interface must be Handle's. The
  // error names the address and what went wrong (a refused TLS handshake shows as a disconnect).
  template <class Handle>
  Expected<Handle> connect(caf::actor_system& system, const std::string& host, uint16_t port) {
    auto remote = tls() ? caf::openssl::remote_actor<Handle>(system, host, port)
                        : system.middleman().remote_actor<Handle>(host, port);
    if (!remote)
      return Error("cannot reach " + host + ":" + std::to_string(port) +
                   (tls() ? " over TLS: " : ": ") + system.render(remote.error()));
    return *remote;
  }

 private:
  NetworkOptions network_;
  caf::actor_system_config data_config_, control_config_, weights_config_;
  std::unique_ptr<caf::actor_system> data_, control_, weights_;
};

}  // namespace dvla::actors
