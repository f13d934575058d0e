#include <dvla/runtime/platform/placement_report.hpp>

#include <dvla/runtime/platform/thread_pinning.hpp>

namespace dvla {

void PlacementReport::record(ThreadPlacementRecord r) {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.push_back(std::move(r));
}

std::vector<ThreadPlacementRecord> PlacementReport::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_;
}

void PlacementReport::record(MemoryPlacementRecord r) {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_.push_back(std::move(r));
}

std::vector<MemoryPlacementRecord> PlacementReport::memory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memory_;
}

std::string PlacementReport::memory_text() const {
  std::string out;
  for (const auto& m : memory()) {
    if (!out.empty()) out += ", ";
    out += m.holder + (m.error.empty() ? " on NUMA " + std::to_string(m.found)
                                       : " not bound to NUMA " + std::to_string(m.planned) +
                                             ": " + m.error);
  }
  return out;
}

void apply_placement(const ThreadPlacement& placement, const std::string& actor) {
  if (!placement.report) return;
  auto pinned = pin_this_thread(placement.cores, actor);
  placement.report->record(
      {actor, placement.cores, affinity_of_this_thread(), pinned ? "" : pinned.error().message()});
}

}  // namespace dvla
