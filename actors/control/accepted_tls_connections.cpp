#include <dvla/actors/control/accepted_tls_connections.hpp>

namespace dvla::actors {

AcceptedTlsConnections::Admission AcceptedTlsConnections::refuse(bool& told) {
  ++refused_;
  if (told) return Admission::refused;
  told = true;
  return Admission::refused_told;
}

AcceptedTlsConnections::Admission AcceptedTlsConnections::open(const void* session,
                                                               const std::string& address,
                                                               Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (sessions_.count(session) != 0) return Admission::admitted;
  auto& peer = peers_[address];
  if (peer.open >= max_per_address_) return refuse(peer.bound_told);
  ++peer.open;
  sessions_.emplace(session, Session{address, now});
  return Admission::admitted;
}

AcceptedTlsConnections::Admission AcceptedTlsConnections::handshake(const void* session,
                                                                    Clock::time_point now) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session);
  if (found == sessions_.end() || now - found->second.opened <= handshake_timeout_)
    return Admission::admitted;
  return refuse(peers_[found->second.address].timeout_told);
}

void AcceptedTlsConnections::close(const void* session) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session);
  if (found == sessions_.end()) return;
  const auto peer = peers_.find(found->second.address);
  if (peer != peers_.end() && --peer->second.open == 0) peers_.erase(peer);
  sessions_.erase(found);
}

bool AcceptedTlsConnections::counted(const void* session) const {
  std::lock_guard lock(mutex_);
  return sessions_.count(session) != 0;
}

void AcceptedTlsConnections::set_bounds(size_t max_per_address, Clock::duration handshake_timeout) {
  std::lock_guard lock(mutex_);
  max_per_address_ = max_per_address;
  handshake_timeout_ = handshake_timeout;
}

size_t AcceptedTlsConnections::max_per_address() const {
  std::lock_guard lock(mutex_);
  return max_per_address_;
}

AcceptedTlsConnections::Clock::duration AcceptedTlsConnections::handshake_timeout() const {
  std::lock_guard lock(mutex_);
  return handshake_timeout_;
}

size_t AcceptedTlsConnections::open_from(const std::string& address) const {
  std::lock_guard lock(mutex_);
  const auto found = peers_.find(address);
  return found == peers_.end() ? 0 : found->second.open;
}

std::string AcceptedTlsConnections::address_of(const void* session) const {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session);
  return found == sessions_.end() ? std::string() : found->second.address;
}

uint64_t AcceptedTlsConnections::refused() const {
  std::lock_guard lock(mutex_);
  return refused_;
}

AcceptedTlsConnections& accepted_tls_connections() {
  // Until a PlaneSystems with TLS sets cluster.max_connections_per_address and
  // cluster.tls.handshake_timeout_s (their defaults).
  static AcceptedTlsConnections connections(64, std::chrono::seconds(10));
  return connections;
}

}  // namespace dvla::actors
