#include <dvla/actors/cluster/peer_connections.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include <dvla/actors/control/socket_peer.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/sender_check.hpp>

namespace dvla::actors {
namespace {

using self_ptr = peer_connections_actor::pointer;
using Endpoints = std::vector<std::string>;

// A middleman answers from its own tables: a second is far more than it takes.
constexpr auto lookup_timeout = std::chrono::seconds(1);

struct Endpoint {
  std::string host;
  uint16_t port = 0;
  bool operator<(const Endpoint& o) const {
    return std::tie(host, port) < std::tie(o.host, o.port);
  }
  std::string text() const { return endpoint_text(host, port); }
};

// Every actor system of `node`'s process: CAF gives them the process's node id but for the last
// byte of its host id, which numbers them.
std::vector<caf::node_id> systems_of_process(const caf::node_id& node) {
  const auto* data = dynamic_cast<const caf::node_id::default_data*>(node.operator->());
  if (data == nullptr) return {node};
  std::vector<caf::node_id> systems;
  auto host = data->host_id();
  for (int last = 0; last < 256; ++last) {
    host.back() = static_cast<uint8_t>(last);
    systems.push_back(caf::make_node_id(data->process_id(), host));
  }
  return systems;
}

// Asks each middleman where each of `nodes` is connected; `then` gets the endpoints found once
// every lookup answered (an error or a timeout counts as none).
template <class Then>
void look_up(self_ptr self, const std::vector<caf::io::middleman_actor>& middlemen,
             const std::vector<caf::node_id>& nodes, Then then) {
  struct Lookups {
    size_t pending = 0;
    std::set<Endpoint> found;
    Then then;
  };
  auto lookups = std::make_shared<Lookups>(Lookups{middlemen.size() * nodes.size(), {}, then});
  if (lookups->pending == 0) return then(lookups->found);
  auto answered = [lookups] {
    if (--lookups->pending == 0) lookups->then(lookups->found);
  };
  for (const auto& middleman : middlemen)
    for (const auto& node : nodes)
      self->request(middleman, lookup_timeout, caf::get_atom::value, node)
          .then(
              [lookups, answered](const caf::node_id&, const std::string& host, uint16_t port) {
                if (!host.empty()) lookups->found.insert({host, port});
                answered();
              },
              [answered](const caf::error&) { answered(); });
}

Endpoints texts(const std::set<Endpoint>& endpoints) {
  Endpoints out;
  for (const auto& e : endpoints) out.push_back(e.text());
  return out;
}

peer_connections_actor::behavior_type peer_connections(
    self_ptr self, std::vector<caf::io::middleman_actor> middlemen) {
  return {
      [self, middlemen](locate_atom, const caf::node_id& node) -> caf::result<Endpoints> {
        if (!from_this_process(self))
          return make_error(errc::not_allowed, "only this process locates its peers");
        auto promise = self->make_response_promise<Endpoints>();
        look_up(self, middlemen, {node}, [promise](const std::set<Endpoint>& found) mutable {
          promise.deliver(texts(found));
        });
        return promise;
      },
      [self, middlemen](disconnect_atom, const caf::node_id& node) -> caf::result<Endpoints> {
        if (!from_this_process(self))
          return make_error(errc::not_allowed, "only this process disconnects its peers");
        auto promise = self->make_response_promise<Endpoints>();
        look_up(self, middlemen, systems_of_process(node),
                [promise](const std::set<Endpoint>& found) mutable {
                  Endpoints ended;
                  for (const auto& e : found)
                    if (shut_down_connections_to(e.host, e.port) > 0) ended.push_back(e.text());
                  promise.deliver(std::move(ended));
                });
        return promise;
      },
  };
}

}  // namespace

peer_connections_actor spawn_peer_connections(caf::actor_system& system,
                                              std::vector<caf::io::middleman_actor> middlemen) {
  return system.spawn(peer_connections, std::move(middlemen));
}

std::string endpoints_text(const std::vector<std::string>& endpoints) {
  if (endpoints.empty()) return "no connection";
  std::string text;
  for (const auto& e : endpoints) text += (text.empty() ? "" : ", ") + e;
  return text;
}

}  // namespace dvla::actors
