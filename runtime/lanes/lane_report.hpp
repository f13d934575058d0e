#pragma once
// LaneReport: how busy each lane of a run was, as plain data for the app's summary and the
// pipeline benchmark.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include <dvla/runtime/lanes/lane.hpp>

namespace dvla {

struct LaneUse {
  int actors = 0;            // actors whose home is this lane (at least 1 counted for fractions)
  double busy_s = 0;         // wall time of the lane's work spans, summed over its actors
  double cpu_s = 0;          // CPU time of that work
  double busy_fraction = 0;  // busy_s / (wall_s * actors): 1 = its actors never idled
};

struct LaneReport {
  double wall_s = 0;
  // The process's CPU time since the tracer started: what the lanes' cpu_s leave of it is the
  // runtime's own (actor scheduling, messages, progress) and threads no lane accounts for.
  double process_cpu_s = 0;
  std::array<LaneUse, lane_count> lanes{};
  // Per actor, the deepest its input queue got: segments unacknowledged (samplers), segments
  // buffered for training (trainer), requests waiting for a forward pass (inference).
  std::map<std::string, int64_t> queue_peaks;
  std::map<std::string, double> work_s;  // per span name, summed over actors
  // Per actor that computes with LibTorch, its thread's intra-op threads.
  std::map<std::string, int> intra_op_threads;

  const LaneUse& operator[](Lane lane) const { return lanes[static_cast<size_t>(lane)]; }
};

// Adds `part`, another run of the same graph, to `total`: times summed, busy fractions over the
// summed wall time, queue peaks and intra-op threads the larger.
void accumulate(LaneReport& total, const LaneReport& part);

// The speedup that overlapping the lanes could give at best, from their costs per env step in
// a lock-step run: the lanes' times summed (lock-step runs them one after another) over the
// longest one (a pipeline is as fast as its slowest lane), and no better than the CPU work
// spread over `cores` (the process's CPU time where the report has it, else the lanes'). A
// lane's time per step is its busy time over its actors (they run in parallel) per env step.
double ideal_speedup(const LaneReport& lock_step, uint64_t env_steps, int cores);

}  // namespace dvla
