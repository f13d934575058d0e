#pragma once
// Placement (graph.placement = auto): which cores each lane's threads run on, so that samplers,
// inference and training do not take each other's cores where the machine has enough — one core
// per sampler and per replica, the replicas spread one per NUMA node, the trainer the cores left.
// With fewer cores than threads, each lane gets a group of cores its threads share (in proportion
// to their numbers); with fewer cores than lanes, samplers and inference share (they take turns:
// a sampler waits while inference acts) and training keeps its own; with one core there is nothing
// to separate and nothing is pinned. Where the lanes take turns (sync mode: sampling waits while
// training runs and the other way round) separating them only takes cores from each in its turn,
// so with fewer cores than threads nothing is pinned either. `notes` says which of these it did.
#include <string>
#include <vector>

#include <dvla/runtime/platform/machine_topology.hpp>

namespace dvla {

using CpuSet = std::vector<int>;  // hardware threads, OS indices, ascending

struct PlacementRequest {
  int samplers = 0;
  int replicas = 0;
  bool trainer = false;  // this process trains (one process, or a coordinator)
  bool lanes_take_turns = false;  // sync mode: samplers and inference idle while training runs
};

struct Placement {
  std::vector<CpuSet> samplers, replicas;  // one each, in order; empty sets: not pinned
  std::vector<int> replica_numa;           // the NUMA node of each replica's cores
  CpuSet trainer, distributor;
  std::vector<std::string> notes;  // what it did where the cores were too few

  bool pinned() const;
  std::string text() const;  // "sampler 0: 2; ...; inference 0: 4 (NUMA 0); ..."
};

Placement plan_placement(const MachineTopology& machine, const PlacementRequest& request);

// "0-3,8" for the log and the status.
std::string cpu_list(const CpuSet& set);

}  // namespace dvla
