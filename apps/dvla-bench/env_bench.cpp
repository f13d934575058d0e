#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <thread>

#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/resident_memory.hpp"

namespace dvla::apps {
namespace {

using namespace envs::tabletop;
using Clock = std::chrono::steady_clock;

constexpr int envs_per_thread = 4;
constexpr int rounds = 10;

struct Case {
  const char* name;
  int size;
  bool front, wrist;
};

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A batch stepped by the scripted expert (realistic motion and contacts) for timed windows.
class Workload {
 public:
  Workload(const Case& c, int threads) : batch_(config(c, threads), envs(threads)) {
    std::vector<uint64_t> seeds(batch_.size());
    for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = 1000 + i;
    batch_.reset(seeds);
    for (size_t i = 0; i < batch_.size(); ++i) experts_.emplace_back(batch_.env(i).task());
    actions_.resize(batch_.size() * action_size);
    for (int warmup = 0; warmup < 10; ++warmup) step();
  }
  struct Window {
    double steps_per_second;
    double cpu_us_per_step;  // process CPU time: what one env step costs, whatever the load
    double cores;            // CPU time over wall time: how many cores the window got
  };
  // One timed window of about `seconds`.
  Window measure(double seconds) {
    long steps = 0;
    const auto start = Clock::now();
    const double cpu_start = process_cpu_seconds();
    double elapsed = 0;
    while (elapsed < seconds) {
      step();
      steps += static_cast<long>(batch_.size());
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    const double cpu = process_cpu_seconds() - cpu_start;
    return {static_cast<double>(steps) / elapsed, 1e6 * cpu / static_cast<double>(steps),
            cpu / elapsed};
  }

 private:
  static TabletopConfig config(const Case& c, int threads) {
    TabletopConfig config;
    config.image_size = c.size;
    config.front_camera = c.front;
    config.wrist_camera = c.wrist;
    config.threads = threads;
    return config;
  }
  static size_t envs(int threads) { return static_cast<size_t>(threads * envs_per_thread); }
  void step() {
    for (size_t i = 0; i < batch_.size(); ++i) {
      const auto a = experts_[i].act(batch_.env(i).state());
      std::copy(a.begin(), a.end(), actions_.begin() + i * action_size);
    }
    batch_.step(actions_.data());
    for (size_t i = 0; i < batch_.size(); ++i)
      if (batch_.output().episode_ended(i)) experts_[i].reset(batch_.env(i).task());
  }

  TabletopBatch batch_;
  std::vector<ScriptedExpert> experts_;
  std::vector<float> actions_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double best(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// RSS of one env with its renderer: the difference between batches of 1 and 17 envs on one
// thread, after the process-wide costs (EGL, the first context) are paid by the first.
nlohmann::json memory_per_env() {
  TabletopConfig config;
  config.threads = 1;
  const double before = resident_mib();
  double one = 0, many = 0;
  {
    TabletopBatch batch(config, 1);
    batch.reset({1});
    one = resident_mib();
  }
  {
    TabletopBatch batch(config, 17);
    std::vector<uint64_t> seeds(17);
    for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = i;
    batch.reset(seeds);
    many = resident_mib();
  }
  return {{"first_env_mib", one - before}, {"per_env_mib", (many - one) / 16.0}};
}

}  // namespace

Expected<nlohmann::json> bench_env(const BenchOptions& options) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const Case cases[] = {{"no render", 64, false, false},
                        {"64x64, front", 64, true, false},
                        {"64x64, front+wrist", 64, true, true},
                        {"128x128, front", 128, true, false},
                        {"128x128, front+wrist", 128, true, true}};
  // Memory first, before anything else has paid the process-wide EGL and Mesa costs.
  const auto memory = memory_per_env();
  std::string renderer;
  {
    TabletopBatch probe(TabletopConfig{}, 1);
    renderer = probe.renderer_name();
  }
  fmt::print(
      "dvla-bench env: tabletop suite (mixed), scripted expert, {} envs per thread\n"
      "renderer: {}\n{} windows of {:.2f} s per figure, 1-thread and {}-thread windows "
      "alternating; best window (the least disturbed by other load) and median.\n\n",
      envs_per_thread, renderer, rounds, options.seconds / rounds, cores);
  fmt::print("{:<22} {:>20} {:>22} {:>16} {:>9} {:>9} {:>6}\n", "images", "1 thread /s",
             fmt::format("{} threads /s", cores), "scaling", "cpu/step", "cpu/step", "cores");
  fmt::print("{:<22} {:>20} {:>22} {:>16} {:>9} {:>9} {:>6}\n", "", "best (median)",
             "best (median)", "best (median)", "1 thr us", fmt::format("{} thr us", cores), "");
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json result;
  ProgressMeter meter({"env:", "rounds", std::size(cases) * static_cast<uint64_t>(rounds)});
  uint64_t measured = 0;
  for (const auto& c : cases) {
    Workload single(c, 1), parallel(c, cores);
    std::vector<double> ones, alls, cpu_ones, cpu_alls, cores_all;
    for (int r = 0; r < rounds; ++r) {
      const auto a = single.measure(options.seconds / rounds);
      const auto b = parallel.measure(options.seconds / rounds);
      ones.push_back(a.steps_per_second);
      alls.push_back(b.steps_per_second);
      cpu_ones.push_back(a.cpu_us_per_step);
      cpu_alls.push_back(b.cpu_us_per_step);
      cores_all.push_back(b.cores);
      meter.update(++measured, c.name);
    }
    const double one = best(ones), all = best(alls);
    const double one_median = median(ones), all_median = median(alls);
    const double cpu_one = median(cpu_ones), cpu_all = median(cpu_alls);
    meter.note(fmt::format(
        "{:<22} {:>11.0f} ({:>6.0f}) {:>13.0f} ({:>6.0f}) {:>8.2f}x ({:.2f}x) {:>9.0f} {:>9.0f} "
        "{:>6.2f}",
        c.name, one, one_median, all, all_median, all / one, all_median / one_median, cpu_one,
        cpu_all, median(cores_all)));
    rows.push_back({{"images", c.name},
                    {"size", c.size},
                    {"cameras", int(c.front) + int(c.wrist)},
                    {"steps_per_second_1_thread", one},
                    {"steps_per_second_all_threads", all},
                    {"scaling", all / one},
                    {"steps_per_second_1_thread_median", one_median},
                    {"steps_per_second_all_threads_median", all_median},
                    {"scaling_median", all_median / one_median},
                    {"cpu_us_per_step_1_thread", cpu_one},
                    {"cpu_us_per_step_all_threads", cpu_all},
                    {"cores_obtained_all_threads", median(cores_all)},
                    {"windows_1_thread", ones},
                    {"windows_all_threads", alls}});
  }
  meter.finish();
  fmt::print(
      "\ncpu/step: process CPU time per env step (median), 1 thread and {} threads; cores: "
      "CPU time over wall time in the {}-thread windows (median). Scaling = cores obtained "
      "x (cpu/step at 1 thread / cpu/step at {}).\n",
      cores, cores, cores);
  fmt::print(
      "\nmemory (resident): {:.1f} MiB for the first env (EGL, Mesa, GL context), {:.2f} MiB "
      "per further env with its renderer (64x64, 2 cameras)\n",
      memory["first_env_mib"].get<double>(), memory["per_env_mib"].get<double>());
  result["steps_per_second_no_render"] = rows[0]["steps_per_second_1_thread"];
  result["steps_per_second_render_64_one_camera"] = rows[1]["steps_per_second_1_thread"];
  result["steps_per_second_render_64"] = rows[2]["steps_per_second_1_thread"];
  result["steps_per_second_render_128_one_camera"] = rows[3]["steps_per_second_1_thread"];
  result["steps_per_second_render_128"] = rows[4]["steps_per_second_1_thread"];
  result["threads"] = cores;
  result["scaling_no_render"] = rows[0]["scaling"];
  result["scaling_render_64"] = rows[2]["scaling"];
  result["cases"] = rows;
  result["memory"] = memory;
  result["renderer"] = renderer;
  return result;
}

}  // namespace dvla::apps
