#pragma once
// MachineTopology: the cores this process may run on, as hwloc sees them — each physical core
// with its NUMA node and its hardware threads (OS indices), within the process's affinity mask
// (a container's or taskset's limit), and how many packages and NUMA nodes they span. Read once
// per process; a synthetic description (hwloc's syntax, "numa:2 core:4 pu:2") gives the same view
// of a machine that is not this one, for planning and tests.
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla {

struct CoreSlot {
  int numa = 0;          // logical index of its NUMA node
  std::vector<int> pus;  // its hardware threads, OS indices
};

class MachineTopology {
 public:
  static Expected<MachineTopology> of_this_process();
  static Expected<MachineTopology> synthetic(const std::string& description);

  const std::vector<CoreSlot>& cores() const { return cores_; }
  int numa_nodes() const { return numa_nodes_; }
  int packages() const { return packages_; }
  // "1 package, 2 NUMA nodes, 8 cores (16 threads) usable".
  std::string text() const;

 private:
  std::vector<CoreSlot> cores_;
  int numa_nodes_ = 1, packages_ = 1;
};

}  // namespace dvla
