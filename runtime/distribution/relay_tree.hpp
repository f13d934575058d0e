#pragma once
// RelayTree: who sends each node its weight versions. The learner (node 0, the root) sends to at
// most `fanout` nodes and every node relays to at most `fanout` more, filled breadth first, so
// the learner's bytes per version stay at `fanout` copies however many nodes join, and a version
// reaches the last node after about log_fanout(nodes) relays. A lost node's children are routed
// around it: they move to its parent (which may then have more than `fanout` children: a move
// must not wait for a slot).
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace dvla {

class RelayTree {
 public:
  static constexpr uint32_t root = 0;  // the learner

  // Throws std::invalid_argument for a fanout below 1.
  explicit RelayTree(int fanout);

  // Places `node` (not in the tree yet) under the shallowest member with a free slot, the
  // earliest placed first; answers its parent.
  uint32_t add(uint32_t node);

  // Takes `node` out; answers each of its children with its new parent (node's parent). A node
  // not in the tree: nothing.
  std::vector<std::pair<uint32_t, uint32_t>> remove(uint32_t node);

  bool contains(uint32_t node) const { return parent_.count(node) != 0; }
  uint32_t parent(uint32_t node) const { return parent_.at(node); }
  const std::vector<uint32_t>& children(uint32_t node) const;
  size_t depth(uint32_t node) const;  // hops from the learner: 1 for its own children
  size_t size() const { return parent_.size(); }

 private:
  size_t fanout_;
  std::map<uint32_t, uint32_t> parent_;                 // every node but the root
  std::map<uint32_t, std::vector<uint32_t>> children_;  // in the order placed
};

}  // namespace dvla
