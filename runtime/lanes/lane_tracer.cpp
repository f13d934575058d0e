#include <dvla/runtime/lanes/lane_tracer.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace dvla {
namespace {

int lane_pid(Lane lane) { return static_cast<int>(lane) + 1; }

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name) {
  nlohmann::json m = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

}  // namespace

std::shared_ptr<LaneTrack> LaneTracer::track(const std::string& actor, Lane home) {
  auto t = std::make_shared<LaneTrack>(actor, home, record_);
  std::lock_guard lock(mutex_);
  tracks_.push_back(t);
  return t;
}

LaneReport LaneTracer::report(double wall_s) const {
  std::lock_guard lock(mutex_);
  LaneReport r;
  r.wall_s = wall_s;
  r.process_cpu_s = static_cast<double>(process_cpu_ns() - started_cpu_ns_) * 1e-9;
  for (const auto& t : tracks_) {
    ++r.lanes[static_cast<size_t>(t->home())].actors;
    r.queue_peaks[t->actor()] = t->queue_peak();
    if (const int threads = t->intra_op_threads(); threads > 0)
      r.intra_op_threads[t->actor()] = threads;
    for (const auto& [name, ns] : t->work_by_name())
      r.work_s[name] += static_cast<double>(ns) * 1e-9;
    for (auto lane : all_lanes) {
      auto& use = r.lanes[static_cast<size_t>(lane)];
      use.busy_s += static_cast<double>(t->busy_ns(lane)) * 1e-9;
      use.cpu_s += static_cast<double>(t->cpu_ns(lane)) * 1e-9;
    }
  }
  for (auto& use : r.lanes)
    if (wall_s > 0) use.busy_fraction = use.busy_s / (wall_s * std::max(use.actors, 1));
  return r;
}

std::string describe(const std::vector<StalledActor>& stalled) {
  std::string working, waiting;
  for (const auto& a : stalled) {
    const auto who = a.actor + " (" + lane_name(a.lane) + " lane";
    if (!a.working_on.empty())
      working += (working.empty() ? "" : "; ") + who + ") in " + a.working_on + " for " +
                 seconds_text(a.seconds);
    else
      waiting += (waiting.empty() ? "" : ", ") + who + ", " + seconds_text(a.seconds) + ")";
  }
  if (waiting.empty()) return working;
  return working + (working.empty() ? "" : "; ") + "no work finished: " + waiting;
}

std::vector<StalledActor> LaneTracer::stalled(double limit_s, int64_t now_ns) const {
  std::lock_guard lock(mutex_);
  std::vector<StalledActor> out;
  for (const auto& t : tracks_) {
    const auto work = t->in_progress();
    const int64_t last = t->last_active_ns();
    const int64_t since = work.name ? work.since_ns : last > 0 ? last : started_ns_;
    const double seconds = static_cast<double>(now_ns - since) * 1e-9;
    if (seconds < limit_s) continue;
    out.push_back({t->actor(), t->home(), work.name ? work.name : "", seconds});
  }
  std::stable_sort(out.begin(), out.end(), [](const StalledActor& a, const StalledActor& b) {
    if (a.working_on.empty() != b.working_on.empty()) return !a.working_on.empty();
    return a.seconds > b.seconds;
  });
  return out;
}

std::string LaneTracer::chrome_trace() const {
  std::lock_guard lock(mutex_);
  auto events = nlohmann::json::array();
  for (auto lane : all_lanes)
    events.push_back(
        metadata("process_name", lane_pid(lane), -1, std::string(lane_name(lane)) + " lane"));
  for (size_t tid = 0; tid < tracks_.size(); ++tid) {
    const auto& t = *tracks_[tid];
    const auto spans = t.spans();
    std::array<bool, lane_count> named{};
    for (const auto& s : spans) {
      const int pid = lane_pid(s.lane);
      auto& seen = named[static_cast<size_t>(s.lane)];
      if (!seen) events.push_back(metadata("thread_name", pid, static_cast<int>(tid), t.actor()));
      seen = true;
      events.push_back({{"name", s.name},
                        {"cat", s.wait ? "wait" : "work"},
                        {"ph", "X"},
                        {"pid", pid},
                        {"tid", tid},
                        {"ts", static_cast<double>(s.start_ns - started_ns_) * 1e-3},
                        {"dur", static_cast<double>(s.end_ns - s.start_ns) * 1e-3}});
    }
    if (t.truncated())
      events.push_back({{"name", "trace truncated: span limit reached"},
                        {"ph", "i"},
                        {"s", "t"},
                        {"pid", lane_pid(t.home())},
                        {"tid", tid},
                        {"ts", static_cast<double>(trace_clock_ns() - started_ns_) * 1e-3}});
  }
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
}

Status LaneTracer::write_chrome_trace(const std::string& path) const {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return Error("cannot write trace file '" + path + "'");
  out << chrome_trace() << '\n';
  if (!out.flush()) return Error("writing trace file '" + path + "' failed");
  return {};
}

void accumulate(LaneReport& total, const LaneReport& part) {
  total.wall_s += part.wall_s;
  total.process_cpu_s += part.process_cpu_s;
  for (size_t i = 0; i < total.lanes.size(); ++i) {
    auto& use = total.lanes[i];
    use.actors = std::max(use.actors, part.lanes[i].actors);
    use.busy_s += part.lanes[i].busy_s;
    use.cpu_s += part.lanes[i].cpu_s;
    use.busy_fraction =
        total.wall_s > 0 ? use.busy_s / (total.wall_s * std::max(use.actors, 1)) : 0.0;
  }
  for (const auto& [name, peak] : part.queue_peaks)
    total.queue_peaks[name] = std::max(total.queue_peaks[name], peak);
  for (const auto& [name, seconds] : part.work_s) total.work_s[name] += seconds;
  for (const auto& [name, threads] : part.intra_op_threads)
    total.intra_op_threads[name] = std::max(total.intra_op_threads[name], threads);
}

double ideal_speedup(const LaneReport& r, uint64_t env_steps, int cores) {
  if (env_steps == 0) return 0;
  double sum = 0, longest = 0, cpu = 0;
  for (const auto& use : r.lanes) {
    const double per_step = use.busy_s / std::max(use.actors, 1) / static_cast<double>(env_steps);
    sum += per_step;
    longest = std::max(longest, per_step);
    cpu += use.cpu_s;
  }
  // The runtime's own CPU time (what no lane accounts for) needs the cores as much.
  cpu = std::max(cpu, r.process_cpu_s) / static_cast<double>(env_steps);
  const double bound = std::max(longest, cpu / std::max(cores, 1));
  return bound > 0 ? sum / bound : 0;
}

}  // namespace dvla
