#pragma once
// LaneTracer: the tracks of one run, one per actor. It hands each actor its track when the graph
// is built, and at the end sums them per lane (LaneReport) and writes them as a Chrome
// trace-event file (opens in Perfetto and chrome://tracing): one process per lane, one thread
// per actor within it, a complete event per span.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dvla/core/cpu_clock.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/runtime/lanes/lane_report.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>

namespace dvla {

// An actor that has not finished a piece of work for a while, as the watchdog names it.
struct StalledActor {
  std::string actor;
  Lane lane;
  std::string working_on;  // the work span it is in the middle of; empty: it waits
  double seconds = 0;      // in that span, or since it last finished one (or since the start)
};

// "sampler/0 (sampling lane) in env_step for 12.3 s; no work finished for 12.1 s: inference/0
// (inference lane), ..." — empty for none.
std::string describe(const std::vector<StalledActor>& stalled);

class LaneTracer {
 public:
  explicit LaneTracer(bool record_spans) : record_(record_spans) {}

  std::shared_ptr<LaneTrack> track(const std::string& actor, Lane home);

  LaneReport report(double wall_s) const;
  // The actors that have not finished a piece of work for at least `limit_s` at `now_ns`: those
  // in the middle of one first, longest first; then those that wait, longest first.
  std::vector<StalledActor> stalled(double limit_s, int64_t now_ns = trace_clock_ns()) const;
  // The Chrome trace-event JSON of every recorded span, times relative to the tracer's start.
  std::string chrome_trace() const;
  Status write_chrome_trace(const std::string& path) const;

 private:
  bool record_;
  int64_t started_ns_ = trace_clock_ns();
  int64_t started_cpu_ns_ = process_cpu_ns();
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<LaneTrack>> tracks_;
};

}  // namespace dvla
