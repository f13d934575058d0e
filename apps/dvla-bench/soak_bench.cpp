// dvla-bench soak: long runs of CartPole and of the synthetic env (checkpoints and evaluations on,
// as a user's run has them), resident memory and open file descriptors sampled throughout; their
// growth per hour after warm-up, as the slope of a least-squares line. A leak shows as a steady
// slope; allocator and LibTorch warm-up do not (they are over before the fit starts).
#include <fmt/core.h>

#include <dirent.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/resident_memory.hpp"

namespace dvla::apps {
namespace {

struct Sample {
  double seconds = 0;
  double resident_mib = 0;
  double open_fds = 0;
};

int open_fds() {
  int n = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (const dirent* entry = readdir(dir))
      if (entry->d_name[0] != '.') ++n;
    closedir(dir);
    --n;  // the directory stream's own
  }
  return n;
}

// The least-squares slope of y over x (per unit of x); 0 for fewer than two points.
template <class Y>
double slope(const std::vector<Sample>& samples, Y y) {
  const double n = static_cast<double>(samples.size());
  if (samples.size() < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& s : samples) {
    sx += s.seconds, sy += y(s), sxx += s.seconds * s.seconds, sxy += s.seconds * y(s);
  }
  const double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : 0;
}

// A scratch logdir for one workload's checkpoints, removed afterwards.
class ScratchLogdir {
 public:
  ScratchLogdir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dvla-soak-XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchLogdir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `meter` counts seconds over both workloads; this one's start at `before`.
Expected<nlohmann::json> soak(const std::string& env, double seconds, const BenchOptions& options,
                              ProgressMeter& meter, double before) {
  ScratchLogdir logdir;
  if (logdir.path().empty()) return Error("soak: cannot make a temporary logdir");
  Config c;
  c.env.name = env;
  c.run.max_env_steps = uint64_t{1} << 50;  // the clock ends it
  c.run.max_seconds = seconds;
  c.run.logdir = logdir.path();
  c.run.checkpoint_every = 200;
  c.run.checkpoint_keep = 2;
  c.run.eval_every = 200;
  c.run.eval_episodes = 5;
  c.run.progress_interval_s = std::clamp(seconds / 240, 1.0, 15.0);
  for (const auto& [key, value] : options.settings)
    if (auto s = set_config_value(c, key, value); !s) return s.error();
  std::vector<Sample> samples;
  auto result = train(c, default_graph_parts(c), [&](const RunStatus& s) {
    samples.push_back({s.wall_seconds, resident_mib(), static_cast<double>(open_fds())});
    meter.update(static_cast<uint64_t>(before + s.wall_seconds),
                 fmt::format("{} at {:.0f} MiB resident", env, samples.back().resident_mib));
  });
  if (!result) return result.error().within("soak on " + env);
  // Warm-up: the first fifth of the run, at most 5 minutes.
  const double warm_up = std::min(seconds / 5, 300.0);
  std::vector<Sample> settled;
  std::copy_if(samples.begin(), samples.end(), std::back_inserter(settled),
               [&](const Sample& s) { return s.seconds >= warm_up; });
  if (settled.size() < 4) return Error("soak on " + env + ": too few samples; raise --seconds");
  const double rss_per_hour = 3600 * slope(settled, [](const Sample& s) { return s.resident_mib; });
  const double fds_per_hour = 3600 * slope(settled, [](const Sample& s) { return s.open_fds; });
  const auto& first = settled.front();
  const auto& last = settled.back();
  meter.note(fmt::format(
      "{:<10} {:6.0f} s, {} env steps ({:.0f}/s), version {}, {} evaluations, checkpoints in a "
      "scratch logdir\n"
      "           after {:.0f} s of warm-up: resident {:.1f} -> {:.1f} MiB, growth {:+.2f} MiB/h; "
      "open fds {:.0f} -> {:.0f}, growth {:+.2f}/h",
      env, result->status.wall_seconds, result->status.env_steps, result->status.steps_per_second,
      result->status.version, result->status.evaluations, warm_up, first.resident_mib,
      last.resident_mib, rss_per_hour, first.open_fds, last.open_fds, fds_per_hour));
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& s : samples) curve.push_back({s.seconds, s.resident_mib, s.open_fds});
  return nlohmann::json{{"env", env},
                        {"seconds", result->status.wall_seconds},
                        {"env_steps", result->status.env_steps},
                        {"version", result->status.version},
                        {"warm_up_s", warm_up},
                        {"resident_mib_first", first.resident_mib},
                        {"resident_mib_last", last.resident_mib},
                        {"resident_mib_per_hour", rss_per_hour},
                        {"open_fds_first", first.open_fds},
                        {"open_fds_last", last.open_fds},
                        {"open_fds_per_hour", fds_per_hour},
                        {"curve_s_mib_fds", curve}};
}

}  // namespace

Expected<nlohmann::json> bench_soak(const BenchOptions& options) {
  const double seconds = options.seconds_given ? options.seconds : 3600;
  nlohmann::json out = {{"workloads", nlohmann::json::array()}};
  ProgressMeter meter({"soak:", "seconds", static_cast<uint64_t>(2 * seconds)});
  double before = 0;
  for (const char* env : {"cartpole", "synthetic"}) {
    auto figures = soak(env, seconds, options, meter, before);
    if (!figures) return figures.error();
    out["workloads"].push_back(*figures);
    before += seconds;
  }
  meter.finish();
  return out;
}

}  // namespace dvla::apps
