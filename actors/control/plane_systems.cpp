#include <dvla/actors/control/plane_systems.hpp>

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include <chrono>

#include <dvla/actors/control/accepted_tls_connections.hpp>
#include <dvla/actors/control/openssl_hooks.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/type_registry.hpp>

namespace dvla::actors {
namespace {

caf::timespan span(double seconds) {
  return std::chrono::duration_cast<caf::timespan>(std::chrono::duration<double>(seconds));
}

void configure(caf::actor_system_config& config, size_t scheduler_threads,
               const NetworkOptions& network) {
  register_types(config);
  config.load<caf::io::middleman>();
  config.set("scheduler.max-threads", scheduler_threads);
  // One shared queue whose idle workers block on a condition variable. CAF's default work
  // stealing has an idle worker poll its queue 500 times 50 us apart before it blocks; the lanes'
  // steady trickle of messages kept every worker of the three systems polling, and the wake-ups
  // cost the cores the lanes compute on (docs/results.md, "CAF's idle workers").
  config.set("scheduler.policy", caf::atom("sharing"));
  if (network.heartbeat_interval_s > 0) {
    config.set("middleman.heartbeat-interval", span(network.heartbeat_interval_s));
    config.set("middleman.connection-timeout", span(network.connection_timeout_s));
  }
  if (!network.tls()) return;
  if (!openssl_hooks_in_place())
    throw Failure(
        "TLS: OpenSSL's SSL_read and SSL_free are not dvla's (actors/control/openssl_hooks.hpp): "
        "one peer's ended connection would end the others', and connections would have no bound; "
        "link the program as an executable");
  accepted_tls_connections().set_bounds(network.max_connections_per_address,
                                        span(network.tls_handshake_timeout_s));
  // Any openssl key set makes CAF authenticate both ends: mutual TLS.
  config.load<caf::openssl::manager>();
  config.set("openssl.certificate", network.tls_certificate);
  config.set("openssl.key", network.tls_key);
  config.set("openssl.cafile", network.tls_cafile);
}

std::unique_ptr<caf::actor_system> start_system(caf::actor_system_config& config) {
  try {
    return std::make_unique<caf::actor_system>(config);
  } catch (const std::exception& e) {
    throw Failure(std::string("the actor system could not start: ") + e.what());
  }
}

}  // namespace

NetworkOptions NetworkOptions::of(const ClusterConfig& cluster) {
  return {cluster.heartbeat_interval_s,
          cluster.connection_timeout_s,
          cluster.tls_certificate,
          cluster.tls_key,
          cluster.tls_cafile,
          static_cast<size_t>(cluster.max_connections_per_address),
          cluster.tls_handshake_timeout_s};
}

PlaneSystems::PlaneSystems(bool split, size_t scheduler_threads, NetworkOptions network)
    : network_(std::move(network)) {
  configure(data_config_, scheduler_threads, network_);
  data_ = start_system(data_config_);
  if (!split) return;
  configure(control_config_, scheduler_threads, network_);
  control_ = start_system(control_config_);
  // The distributor runs detached (a thread of its own): the scheduler has little to do here.
  configure(weights_config_, 1, network_);
  weights_ = start_system(weights_config_);
}

PlaneSystems::~PlaneSystems() {
  control_.reset();  // first: its endpoints refer to actors of the other systems
  weights_.reset();
  data_.reset();
}

}  // namespace dvla::actors
