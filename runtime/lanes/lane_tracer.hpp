#pragma once
// LaneTracer: the tracks of one run, one per actor. It hands each actor its track when the graph
// is built, and at the end sums them per lane (LaneReport) and writes them as a Chrome
// trace-event file (opens in Perfetto and chrome://tracing): one process per lane, one thread
// per actor within it, a complete event per span.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/lanes/lane_report.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>

namespace dvla {

class LaneTracer {
 public:
  explicit LaneTracer(bool record_spans) : record_(record_spans) {}

  std::shared_ptr<LaneTrack> track(const std::string& actor, Lane home);

  LaneReport report(double wall_s) const;
  // The Chrome trace-event JSON of every recorded span, times relative to the tracer's start.
  std::string chrome_trace() const;
  Status write_chrome_trace(const std::string& path) const;

 private:
  bool record_;
  int64_t started_ns_ = trace_clock_ns();
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<LaneTrack>> tracks_;
};

}  // namespace dvla
