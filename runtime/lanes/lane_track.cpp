#include <dvla/runtime/lanes/lane_track.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>

#include <dvla/core/cpu_clock.hpp>

namespace dvla {
namespace {

// Reading a thread's CPU clock is a system call (about a microsecond): done at most this often.
constexpr int64_t cpu_sample_interval_ns = 5'000'000;

}  // namespace

int64_t trace_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

LaneTrack::LaneTrack(std::string actor, Lane home, bool record_spans, size_t max_spans)
    : actor_(std::move(actor)), home_(home), record_(record_spans), max_spans_(max_spans) {}

void LaneTrack::sample_cpu(int64_t now_ns) {
  if (cpu_first_ >= 0 && now_ns - cpu_sampled_at_ < cpu_sample_interval_ns) return;
  const int64_t cpu = thread_cpu_ns();
  if (cpu_first_ < 0) cpu_first_ = cpu;
  cpu_last_ = cpu;
  cpu_sampled_at_ = now_ns;
}

void LaneTrack::begin_work(const char* name, int64_t start_ns) {
  if (working_since_ns_.load(std::memory_order_relaxed) != 0) return;  // an outer span is open
  working_on_.store(name, std::memory_order_relaxed);
  working_since_ns_.store(start_ns, std::memory_order_release);
}

WorkInProgress LaneTrack::in_progress() const {
  WorkInProgress w;
  w.since_ns = working_since_ns_.load(std::memory_order_acquire);
  if (w.since_ns != 0) w.name = working_on_.load(std::memory_order_relaxed);
  return w;
}

void LaneTrack::work(Lane lane, const char* name, int64_t start_ns, int64_t end_ns) {
  last_active_ns_.store(end_ns, std::memory_order_relaxed);
  if (working_since_ns_.load(std::memory_order_relaxed) == start_ns)
    working_since_ns_.store(0, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  busy_[static_cast<size_t>(lane)] += end_ns - start_ns;
  auto named = std::find_if(by_name_.begin(), by_name_.end(), [name](const auto& entry) {
    return entry.first == name || std::strcmp(entry.first, name) == 0;
  });
  if (named == by_name_.end()) named = by_name_.insert(by_name_.end(), {name, 0});
  named->second += end_ns - start_ns;
  sample_cpu(end_ns);
  if (!record_) return;
  if (spans_.size() < max_spans_)
    spans_.push_back({name, lane, false, start_ns, end_ns});
  else
    truncated_ = true;
}

void LaneTrack::wait(const char* name, int64_t start_ns, int64_t end_ns) {
  if (!record_) return;
  std::lock_guard lock(mutex_);
  if (spans_.size() < max_spans_)
    spans_.push_back({name, home_, true, start_ns, end_ns});
  else
    truncated_ = true;
}

void LaneTrack::queue_depth(int64_t depth) {
  std::lock_guard lock(mutex_);
  queue_peak_ = std::max(queue_peak_, depth);
}

int64_t LaneTrack::queue_peak() const {
  std::lock_guard lock(mutex_);
  return queue_peak_;
}

void LaneTrack::set_intra_op_threads(int threads) {
  std::lock_guard lock(mutex_);
  intra_op_threads_ = threads;
}

int LaneTrack::intra_op_threads() const {
  std::lock_guard lock(mutex_);
  return intra_op_threads_;
}

int64_t LaneTrack::busy_ns(Lane lane) const {
  std::lock_guard lock(mutex_);
  return busy_[static_cast<size_t>(lane)];
}

std::vector<std::pair<std::string, int64_t>> LaneTrack::work_by_name() const {
  std::lock_guard lock(mutex_);
  return {by_name_.begin(), by_name_.end()};
}

void LaneTrack::add_cpu(Lane lane, int64_t ns) {
  std::lock_guard lock(mutex_);
  helper_cpu_[static_cast<size_t>(lane)] += ns;
}

int64_t LaneTrack::cpu_ns(Lane lane) const {
  std::lock_guard lock(mutex_);
  const int64_t helpers = helper_cpu_[static_cast<size_t>(lane)];
  int64_t total = 0;
  for (auto b : busy_) total += b;
  if (total == 0 || cpu_first_ < 0) return helpers;
  const double share = static_cast<double>(busy_[static_cast<size_t>(lane)]) / total;
  return helpers + static_cast<int64_t>(share * static_cast<double>(cpu_last_ - cpu_first_));
}

std::vector<TraceSpan> LaneTrack::spans() const {
  std::lock_guard lock(mutex_);
  return spans_;
}

bool LaneTrack::truncated() const {
  std::lock_guard lock(mutex_);
  return truncated_;
}

}  // namespace dvla
