#pragma once
// LaneTrack: what one actor spent its time on. Work spans (env step, forward pass, gradient
// step, weight transfer) add to the busy time of their lane; wait spans (for actions, for a
// credit) are only recorded. With span recording on, every span is kept for the trace; without
// it only the totals are, which costs two clock reads per span.
//
// One actor thread writes a track; the tracer reads it once the actor has ended (or, for
// progress, at any time: the totals are guarded).
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <dvla/runtime/lanes/lane.hpp>

namespace dvla {

int64_t trace_clock_ns();  // the steady clock every span is measured with

// The work span an actor is in the middle of (name null: none).
struct WorkInProgress {
  const char* name = nullptr;
  int64_t since_ns = 0;
};

struct TraceSpan {
  const char* name;  // a string literal
  Lane lane;
  bool wait;  // waiting on a queue, not working
  int64_t start_ns, end_ns;
};

class LaneTrack {
 public:
  // `home`: the lane of the actor (a track may hold work of other lanes, e.g. an inference
  // replica staging weights works for distribution). `max_spans`: recording stops there.
  LaneTrack(std::string actor, Lane home, bool record_spans, size_t max_spans = 2'000'000);

  // A work span began: until it ends (work()), the actor is in the middle of it (an inner span of
  // an open one is not recorded as such: the outer one says more).
  void begin_work(const char* name, int64_t start_ns);
  void work(Lane lane, const char* name, int64_t start_ns, int64_t end_ns);
  void wait(const char* name, int64_t start_ns, int64_t end_ns);
  // The current depth of the actor's input queue (what it holds and has not processed yet); the
  // track keeps the highest.
  void queue_depth(int64_t depth);
  // CPU time that threads other than the actor's spent on its work in `lane` (an env batch's
  // worker threads stepping and rendering while the actor waits for them).
  void add_cpu(Lane lane, int64_t ns);
  // The LibTorch intra-op threads the actor's thread computes with (0: it runs no LibTorch).
  void set_intra_op_threads(int threads);

  const std::string& actor() const { return actor_; }
  Lane home() const { return home_; }
  int64_t busy_ns(Lane lane) const;
  // Work time per span name ("env_step", "forward", ...).
  std::vector<std::pair<std::string, int64_t>> work_by_name() const;
  // CPU time of the actor's thread, split over the lanes by busy time (read at most every few
  // milliseconds, so it lags by that much), and what add_cpu counted in the lane.
  int64_t cpu_ns(Lane lane) const;
  std::vector<TraceSpan> spans() const;
  bool truncated() const;  // more spans happened than were kept
  int64_t queue_peak() const;
  int intra_op_threads() const;
  // When the actor's thread last ended a span (trace clock ns; 0: never). Any thread may read it.
  int64_t last_active_ns() const { return last_active_ns_.load(std::memory_order_relaxed); }
  // What the actor's thread is working on now, and since when. Any thread may read it.
  WorkInProgress in_progress() const;

 private:
  void sample_cpu(int64_t now_ns);  // on the actor's thread

  std::string actor_;
  Lane home_;
  bool record_;
  size_t max_spans_;
  mutable std::mutex mutex_;
  std::vector<TraceSpan> spans_;
  bool truncated_ = false;
  int64_t queue_peak_ = 0;
  int intra_op_threads_ = 0;
  std::atomic<int64_t> last_active_ns_{0};
  std::atomic<const char*> working_on_{nullptr};
  std::atomic<int64_t> working_since_ns_{0};  // 0: no span open
  std::array<int64_t, lane_count> busy_{};
  std::array<int64_t, lane_count> helper_cpu_{};  // add_cpu's
  std::vector<std::pair<const char*, int64_t>> by_name_;  // few names: a linear search
  int64_t cpu_first_ = -1, cpu_last_ = 0, cpu_sampled_at_ = 0;
};

// Measures one work span of `track` (which may be null: then nothing is measured).
class ScopedWork {
 public:
  ScopedWork(LaneTrack* track, Lane lane, const char* name)
      : track_(track), lane_(lane), name_(name), start_(track ? trace_clock_ns() : 0) {
    if (track_) track_->begin_work(name_, start_);
  }
  ScopedWork(LaneTrack* track, const char* name)
      : ScopedWork(track, track ? track->home() : Lane::sampling, name) {}
  ~ScopedWork() {
    if (track_) track_->work(lane_, name_, start_, trace_clock_ns());
  }
  ScopedWork(const ScopedWork&) = delete;
  ScopedWork& operator=(const ScopedWork&) = delete;

 private:
  LaneTrack* track_;
  Lane lane_;
  const char* name_;
  int64_t start_;
};

// A wait that starts now and ends at stop() (or never, when the actor ends first).
class WaitSpan {
 public:
  void start(const char* name) {
    if (!name_) name_ = name, start_ = trace_clock_ns();
  }
  void stop(LaneTrack* track) {
    if (name_ && track) track->wait(name_, start_, trace_clock_ns());
    name_ = nullptr;
  }

 private:
  const char* name_ = nullptr;
  int64_t start_ = 0;
};

}  // namespace dvla
