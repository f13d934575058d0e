#include <dvla/actors/support/sender_check.hpp>

#include <caf/actor_control_block.hpp>
#include <caf/mailbox_element.hpp>

#include <algorithm>

#include <dvla/core/hex.hpp>

namespace dvla::actors {

namespace {

// The sender of the message being handled; null when it came anonymously.
const caf::strong_actor_ptr* sender_of(caf::local_actor* self) {
  const auto* element = self->current_mailbox_element();
  return element == nullptr || element->sender == nullptr ? nullptr : &element->sender;
}

}  // namespace

caf::node_id sender_node(caf::local_actor* self) {
  const auto* sender = sender_of(self);
  return sender ? (*sender)->node() : caf::node_id();
}

bool same_process(const caf::node_id& a, const caf::node_id& b) {
  if (!a || !b) return false;
  if (a == b) return true;
  const auto* x = dynamic_cast<const caf::node_id::default_data*>(a.operator->());
  const auto* y = dynamic_cast<const caf::node_id::default_data*>(b.operator->());
  if (x == nullptr || y == nullptr || x->process_id() != y->process_id()) return false;
  const auto hx = x->host_id(), hy = y->host_id();
  // The last byte numbers the actor systems of one process.
  return std::equal(hx.begin(), hx.end() - 1, hy.begin());
}

std::string process_text(const caf::node_id& node) {
  if (!node) return {};
  const auto* data = dynamic_cast<const caf::node_id::default_data*>(node.operator->());
  if (data == nullptr) return caf::to_string(node);
  const auto host = data->host_id();
  // Without the last byte, which numbers the actor systems of one process.
  return to_hex(host.data(), host.size() - 1) + "#" + std::to_string(data->process_id());
}

bool from_process_of(caf::local_actor* self, const caf::node_id& expected) {
  const auto* sender = sender_of(self);
  if (!sender) return false;
  // Equal also when neither has a node id: a system without the middleman has no peers.
  const auto node = (*sender)->node();
  return node == expected || same_process(node, expected);
}

bool from_this_process(caf::local_actor* self) { return from_process_of(self, self->node()); }

std::string sender_text(caf::local_actor* self) {
  const auto* sender = sender_of(self);
  if (!sender) return "an anonymous sender";
  const auto node = (*sender)->node();
  return node ? "node " + caf::to_string(node) : std::string("this process");
}

}  // namespace dvla::actors
