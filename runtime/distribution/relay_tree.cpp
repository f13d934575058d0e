#include <dvla/runtime/distribution/relay_tree.hpp>

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

namespace dvla {

RelayTree::RelayTree(int fanout) : fanout_(static_cast<size_t>(fanout)) {
  if (fanout < 1)
    throw std::invalid_argument("relay tree: fanout " + std::to_string(fanout) +
                                " must be at least 1");
  children_[root];
}

const std::vector<uint32_t>& RelayTree::children(uint32_t node) const {
  static const std::vector<uint32_t> none;
  auto it = children_.find(node);
  return it == children_.end() ? none : it->second;
}

uint32_t RelayTree::add(uint32_t node) {
  if (node == root || contains(node))
    throw std::invalid_argument("relay tree: node " + std::to_string(node) + " is placed already");
  // Breadth first from the learner: the first member with a free slot.
  std::deque<uint32_t> queue{root};
  for (;;) {
    const uint32_t at = queue.front();
    queue.pop_front();
    const auto& below = children(at);
    if (below.size() < fanout_) {
      children_[at].push_back(node);
      children_[node];
      parent_[node] = at;
      return at;
    }
    queue.insert(queue.end(), below.begin(), below.end());
  }
}

std::vector<std::pair<uint32_t, uint32_t>> RelayTree::remove(uint32_t node) {
  std::vector<std::pair<uint32_t, uint32_t>> moved;
  auto it = parent_.find(node);
  if (it == parent_.end()) return moved;
  const uint32_t up = it->second;
  parent_.erase(it);
  auto& siblings = children_[up];
  siblings.erase(std::find(siblings.begin(), siblings.end(), node));
  for (uint32_t child : children_[node]) {
    parent_[child] = up;
    siblings.push_back(child);
    moved.emplace_back(child, up);
  }
  children_.erase(node);
  return moved;
}

size_t RelayTree::depth(uint32_t node) const {
  size_t d = 0;
  for (uint32_t at = node; at != root; at = parent_.at(at)) ++d;
  return d;
}

}  // namespace dvla
