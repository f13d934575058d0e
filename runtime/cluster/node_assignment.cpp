#include <dvla/runtime/cluster/node_assignment.hpp>

#include <algorithm>

namespace dvla {

uint32_t next_group(const std::vector<GroupShape>& groups, const std::vector<uint32_t>& placed) {
  uint32_t best = 0;
  for (uint32_t g = 1; g < groups.size(); ++g) {
    // placed[g] / samplers[g] < placed[best] / samplers[best], without division (a group asking
    // for no samplers is never below its share).
    const uint64_t here = uint64_t{placed[g]} * std::max(1u, groups[best].samplers);
    const uint64_t there = uint64_t{placed[best]} * std::max(1u, groups[g].samplers);
    if (groups[g].samplers > 0 && (groups[best].samplers == 0 || here < there)) best = g;
  }
  return best;
}

uint32_t node_samplers(const ClusterConfig& cluster, const NodeInfo& node) {
  if (node.samplers > 0) return node.samplers;
  if (cluster.node_samplers > 0) return static_cast<uint32_t>(cluster.node_samplers);
  return std::max(1u, node.cores / 2);
}

Expected<Config> node_config(const NodeAssignment& assignment, const ClusterConfig& own) {
  Config config;
  if (auto loaded = load_config_text(config, assignment.config_text, "the coordinator's config");
      !loaded)
    return loaded.error();
  config.cluster = own;
  config.run.logdir.clear();  // the coordinator's directory: nodes write nothing there
  config.run.trace.clear();
  // The coordinator's path: a node's replicas get the learner's current weights before any step.
  config.model.init.clear();
  if (auto valid = validate(config); !valid)
    return valid.error().within("the coordinator's config");
  return config;
}

}  // namespace dvla
