#include <dvla/runtime/cluster/refusal_ledger.hpp>

namespace dvla {

RefusalLedger::RefusalLedger(uint64_t max_refusals, Clock::duration redisconnect_after,
                             size_t max_logged, size_t max_peers)
    : max_refusals_(max_refusals),
      redisconnect_after_(redisconnect_after),
      max_logged_(max_logged),
      max_peers_(max_peers) {}

RefusalLedger::Verdict RefusalLedger::refused(const std::string& peer, const std::string& process,
                                              const std::string& kind, Clock::time_point now) {
  Verdict v;
  const auto key = peer.empty() ? std::string("anonymous") : peer;
  if (logged_.size() < max_logged_ && logged_.insert({key, kind}).second) {
    v.say = true;
    v.last_said = logged_.size() == max_logged_;
  }
  if (process.empty()) return v;
  auto it = peers_.find(process);
  if (it == peers_.end()) {
    if (peers_.size() >= max_peers_) return v;
    it = peers_.emplace(process, Peer{}).first;
  }
  auto& p = it->second;
  v.refusals = ++p.refusals;
  v.bound_reached = p.refusals == max_refusals_;
  if (p.refusals >= max_refusals_ && may_disconnect(p, now)) {
    v.disconnect = true;
    p.disconnecting = true;
  }
  return v;
}

bool RefusalLedger::may_disconnect(const Peer& p, Clock::time_point now) const {
  if (p.disconnecting) return false;
  return !p.ever_disconnected || now - p.disconnected >= redisconnect_after_;
}

void RefusalLedger::disconnected(const std::string& process, Clock::time_point now) {
  auto it = peers_.find(process);
  if (it == peers_.end()) return;
  it->second.disconnecting = false;
  it->second.ever_disconnected = true;
  it->second.disconnected = now;
}

uint64_t RefusalLedger::refusals_of(const std::string& process) const {
  auto it = peers_.find(process);
  return it == peers_.end() ? 0 : it->second.refusals;
}

}  // namespace dvla
