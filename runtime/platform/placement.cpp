#include <dvla/runtime/platform/placement.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <utility>

namespace dvla {
namespace {

// A core's hardware threads, or several cores' together.
CpuSet threads_of(const std::vector<const CoreSlot*>& cores) {
  CpuSet out;
  for (const auto* c : cores) out.insert(out.end(), c->pus.begin(), c->pus.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Cores taken one at a time, round robin over the NUMA nodes (the first free core of each).
class CorePicker {
 public:
  CorePicker(const MachineTopology& m, int numa_nodes) : by_numa_(numa_nodes) {
    for (const auto& c : m.cores()) by_numa_[c.numa].push_back(&c);
  }
  // The next core, from NUMA node `preferred` when it has one left, else from any.
  const CoreSlot* take(int preferred) {
    for (size_t k = 0; k < by_numa_.size(); ++k) {
      auto& pool = by_numa_[(static_cast<size_t>(preferred) + k) % by_numa_.size()];
      if (pool.empty()) continue;
      const auto* c = pool.front();
      pool.erase(pool.begin());
      return c;
    }
    return nullptr;
  }
  std::vector<const CoreSlot*> rest() {
    std::vector<const CoreSlot*> out;
    for (auto& pool : by_numa_) out.insert(out.end(), pool.begin(), pool.end()), pool.clear();
    return out;
  }

 private:
  std::vector<std::vector<const CoreSlot*>> by_numa_;
};

// Enough cores: one per sampler and replica, the trainer the rest.
Placement dedicated(const MachineTopology& m, const PlacementRequest& r) {
  Placement p;
  CorePicker pick(m, m.numa_nodes());
  for (int i = 0; i < r.replicas; ++i) {
    const auto* c = pick.take(i % m.numa_nodes());
    p.replicas.push_back(threads_of({c}));
    p.replica_numa.push_back(c->numa);
  }
  for (int i = 0; i < r.samplers; ++i) {
    // Beside the replica that serves it (samplers are spread over the replicas in turn).
    const int numa = r.replicas > 0 ? p.replica_numa[static_cast<size_t>(i % r.replicas)] : 0;
    p.samplers.push_back(threads_of({pick.take(numa)}));
  }
  if (r.trainer) p.trainer = threads_of(pick.rest());
  // Weight copies: beside the trainer where it trains here, else on the replicas' cores (whose
  // buffers they fill; it runs once per version).
  p.distributor = p.trainer;
  if (!r.trainer)
    for (const auto& set : p.replicas)
      p.distributor.insert(p.distributor.end(), set.begin(), set.end());
  std::sort(p.distributor.begin(), p.distributor.end());
  return p;
}

// Too few cores for one each: a group of cores per lane, its threads sharing them.
Placement grouped(const MachineTopology& m, const PlacementRequest& r) {
  const auto& cores = m.cores();
  const int n = static_cast<int>(cores.size());
  const int lanes = 2 + (r.trainer ? 1 : 0);
  Placement p;
  std::vector<int> take(3, 0);  // cores for samplers, inference, training
  if (n >= lanes) {
    const double threads = r.samplers + r.replicas + (r.trainer ? 1.0 : 0.0);
    take[0] = std::max(1, static_cast<int>(n * r.samplers / threads));
    take[1] = std::max(1, static_cast<int>(n * r.replicas / threads));
    take[2] = r.trainer ? std::max(1, n - take[0] - take[1]) : 0;
    while (take[0] + take[1] + take[2] > n) --take[take[0] >= take[1] ? 0 : 1];
    if (!r.trainer) take[0] = n - take[1];  // no trainer: the samplers get the rest
    p.notes.push_back(fmt::format(
        "{} cores for {} samplers, {} replicas{}: each lane's threads share a group of cores",
        n, r.samplers, r.replicas, r.trainer ? " and the trainer" : ""));
  } else {
    // Two cores and three lanes: samplers and inference take turns, training keeps its core.
    take = {n - 1, 0, 1};
    p.notes.push_back(fmt::format("{} cores for 3 lanes: samplers and inference share {}, training "
                                  "has its own",
                                  n, n - 1 == 1 ? "one core" : "cores"));
  }
  std::vector<std::vector<const CoreSlot*>> groups(3);
  int next = 0;
  for (int lane = 0; lane < 3; ++lane)
    for (int k = 0; k < take[lane]; ++k) groups[lane].push_back(&cores[next++]);
  const auto sampling = threads_of(groups[0]);
  const auto inference = groups[1].empty() ? sampling : threads_of(groups[1]);
  const int inference_numa = groups[1].empty() ? groups[0].front()->numa : groups[1].front()->numa;
  p.samplers.assign(static_cast<size_t>(r.samplers), sampling);
  p.replicas.assign(static_cast<size_t>(r.replicas), inference);
  p.replica_numa.assign(static_cast<size_t>(r.replicas), inference_numa);
  if (r.trainer) p.trainer = threads_of(groups[2]);
  p.distributor = r.trainer ? p.trainer : inference;
  return p;
}

// Nothing pinned, for the reason `note` gives.
Placement unpinned(const PlacementRequest& r, std::string note) {
  Placement p;
  p.samplers.resize(static_cast<size_t>(r.samplers));
  p.replicas.resize(static_cast<size_t>(r.replicas));
  p.replica_numa.assign(static_cast<size_t>(r.replicas), 0);
  p.notes.push_back(std::move(note));
  return p;
}

}  // namespace

bool Placement::pinned() const {
  return !trainer.empty() || std::any_of(samplers.begin(), samplers.end(),
                                         [](const CpuSet& s) { return !s.empty(); }) ||
         std::any_of(replicas.begin(), replicas.end(), [](const CpuSet& s) { return !s.empty(); });
}

std::string cpu_list(const CpuSet& set) {
  std::string out;
  for (size_t i = 0; i < set.size();) {
    size_t j = i;
    while (j + 1 < set.size() && set[j + 1] == set[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(set[i]) : fmt::format("{}-{}", set[i], set[j]);
    i = j + 1;
  }
  return out.empty() ? "any" : out;
}

std::string Placement::text() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < samplers.size(); ++i)
    parts.push_back(fmt::format("sampler {}: {}", i, cpu_list(samplers[i])));
  for (size_t i = 0; i < replicas.size(); ++i)
    parts.push_back(
        fmt::format("inference {}: {} (NUMA {})", i, cpu_list(replicas[i]), replica_numa[i]));
  if (!trainer.empty()) parts.push_back("trainer: " + cpu_list(trainer));
  parts.push_back("distributor: " + cpu_list(distributor));
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  for (const auto& note : notes) out += " (" + note + ")";
  return out;
}

Placement plan_placement(const MachineTopology& machine, const PlacementRequest& request) {
  const int cores = static_cast<int>(machine.cores().size());
  const int threads = request.samplers + request.replicas + (request.trainer ? 1 : 0);
  if (cores <= 1 || threads == 0)
    return unpinned(request, "one core: nothing to separate, placement left to the OS");
  if (threads <= cores) return dedicated(machine, request);
  if (request.lanes_take_turns)
    return unpinned(request, fmt::format("{} cores for {} threads whose lanes take turns (sync): "
                                         "each lane's turn may use every core, placement left "
                                         "to the OS",
                                         cores, threads));
  return grouped(machine, request);
}

}  // namespace dvla
