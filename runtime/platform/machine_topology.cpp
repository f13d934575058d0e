#include <dvla/runtime/platform/machine_topology.hpp>

#include <fmt/core.h>
#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <memory>

namespace dvla {
namespace {

using Topology = std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)>;

// `synthetic` empty: this machine.
Expected<Topology> load(const std::string& synthetic) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return Error("hwloc could not start");
  Topology t(raw, hwloc_topology_destroy);
  if (!synthetic.empty() && hwloc_topology_set_synthetic(t.get(), synthetic.c_str()) != 0)
    return Error("hwloc does not take the synthetic topology '" + synthetic + "'");
  if (hwloc_topology_load(t.get()) != 0) return Error("hwloc could not read the machine");
  return t;
}

// The OS indices of the hardware threads this process may use (all, for a synthetic machine).
bool usable(int pu, bool synthetic) {
  if (synthetic) return true;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return true;
  return pu < CPU_SETSIZE && CPU_ISSET(pu, &set);
}

int numa_of(hwloc_topology_t t, hwloc_obj_t core) {
  // The NUMA node whose cpuset holds the core (memory children hang off an ancestor).
  const int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    auto node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (hwloc_bitmap_isincluded(core->cpuset, node->cpuset)) return i;
  }
  return 0;
}

struct Seen {
  std::vector<CoreSlot> cores;
  int numa = 1, packages = 1;
};

Expected<Seen> see(const std::string& synthetic) {
  auto t = load(synthetic);
  if (!t) return t.error();
  Seen seen;
  const int n = hwloc_get_nbobjs_by_type(t->get(), HWLOC_OBJ_CORE);
  for (int i = 0; i < n; ++i) {
    auto core = hwloc_get_obj_by_type(t->get(), HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    CoreSlot slot;
    slot.numa = numa_of(t->get(), core);
    int pu = -1;
    while ((pu = hwloc_bitmap_next(core->cpuset, pu)) != -1)
      if (usable(pu, !synthetic.empty())) slot.pus.push_back(pu);
    if (!slot.pus.empty()) seen.cores.push_back(std::move(slot));
  }
  seen.numa = std::max(1, hwloc_get_nbobjs_by_type(t->get(), HWLOC_OBJ_NUMANODE));
  seen.packages = std::max(1, hwloc_get_nbobjs_by_type(t->get(), HWLOC_OBJ_PACKAGE));
  if (seen.cores.empty()) return Error("hwloc found no core this process may run on");
  return seen;
}

}  // namespace

Expected<MachineTopology> MachineTopology::of_this_process() { return synthetic(""); }

Expected<MachineTopology> MachineTopology::synthetic(const std::string& description) {
  auto seen = see(description);
  if (!seen) return seen.error().within("the machine's topology");
  MachineTopology m;
  m.cores_ = std::move(seen->cores);
  m.numa_nodes_ = seen->numa;
  m.packages_ = seen->packages;
  return m;
}

std::string MachineTopology::text() const {
  size_t threads = 0;
  for (const auto& c : cores_) threads += c.pus.size();
  auto plural = [](size_t n, const char* what) {
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  return fmt::format("{}, {}, {} ({}) usable", plural(packages_, "package"),
                     plural(numa_nodes_, "NUMA node"), plural(cores_.size(), "core"),
                     plural(threads, "thread"));
}

}  // namespace dvla
