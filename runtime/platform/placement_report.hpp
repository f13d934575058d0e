#pragma once
// PlacementReport: what graph.placement = auto planned for this process and what each lane
// thread got — the hardware threads it asked for and those the OS says it may run on, read back
// on that thread after pinning (or why pinning failed) — and, on a machine of several NUMA nodes,
// where each replica's weight buffers were bound. Lane threads and the builder record; the status
// reads.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dvla/runtime/platform/placement.hpp>

namespace dvla {

struct ThreadPlacementRecord {
  std::string actor;
  CpuSet planned, applied;
  std::string error;  // empty when the pin took
};

// An inference replica's weight buffers bound to the NUMA node of its cores (machines with
// several), and the node the OS reports them on after binding.
struct MemoryPlacementRecord {
  std::string holder;
  int planned = 0, found = -1;  // NUMA nodes, logical indices; found -1: the OS could not say
  std::string error;            // empty when the binding took
};

class PlacementReport {
 public:
  PlacementReport(std::string topology, std::string plan)
      : topology_(std::move(topology)), plan_(std::move(plan)) {}

  const std::string& topology() const { return topology_; }
  const std::string& plan() const { return plan_; }

  void record(ThreadPlacementRecord r);
  std::vector<ThreadPlacementRecord> threads() const;
  void record(MemoryPlacementRecord r);
  std::vector<MemoryPlacementRecord> memory() const;
  // "inference/0 on NUMA 0, inference/1 on NUMA 1" (or why not); empty when nothing was bound.
  std::string memory_text() const;

 private:
  const std::string topology_, plan_;
  mutable std::mutex mutex_;
  std::vector<ThreadPlacementRecord> threads_;
  std::vector<MemoryPlacementRecord> memory_;
};

// Where one lane actor's thread runs: set by the graph builder, applied by the actor on its own
// thread when it starts (apply_placement). No report: nothing pinned, nothing recorded.
struct ThreadPlacement {
  CpuSet cores;
  std::shared_ptr<PlacementReport> report;
};

// Pins the calling thread as `placement` says and records the outcome under `actor`.
void apply_placement(const ThreadPlacement& placement, const std::string& actor);

}  // namespace dvla
