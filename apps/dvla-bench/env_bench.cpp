#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
#include <thread>

#include <dvla/core/cpu_clock.hpp>
#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/platform/thread_pinning.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "dvla-bench/bare_mujoco.hpp"
#include "dvla-bench/bench.hpp"
#include "dvla-bench/resident_memory.hpp"

namespace dvla::apps {
namespace {

using namespace envs::tabletop;
using Clock = std::chrono::steady_clock;

constexpr int envs_per_thread = 4;
constexpr int rounds = 10;
// Batch steps from the initial states that dvla and the bare loop both run, in each round.
constexpr int recorded_steps = 150;

struct Case {
  const char* name;
  int size;
  bool front, wrist;
};

double process_cpu_seconds() { return 1e-9 * static_cast<double>(process_cpu_ns()); }

// Wall and CPU time spent on something.
struct Spent {
  double wall_s = 0, cpu_s = 0;
  Spent& operator+=(const Spent& o) {
    wall_s += o.wall_s, cpu_s += o.cpu_s;
    return *this;
  }
};

// A batch stepped by the scripted expert (realistic motion and contacts) for timed windows.
class Workload {
 public:
  Workload(const Case& c, int threads)
      : scene_(Scene::load(config(c, threads).physics)), batch_(config(c, threads), envs(threads)) {
    actions_.resize(batch_.size() * action_size);
    restart();
    for (int warmup = 0; warmup < 10; ++warmup) step();
  }
  struct Window {
    double steps_per_second;
    double cpu_us_per_step;  // process CPU time: what one env step costs, whatever the load
    double cores;            // CPU time over wall time: how many cores the window got
  };
  // One timed window of about `seconds`, going on from where the last one ended.
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
    const auto n = static_cast<double>(steps);
    return {n / elapsed, 1e6 * cpu / n, cpu / elapsed};
  }
  // Records what the envs apply in their first `batch_steps` steps, for BareMujoco to replay.
  InputRecording record(int batch_steps) {
    restart();
    InputRecording recording(scene_, batch_.size());
    for (size_t i = 0; i < batch_.size(); ++i) recording.episode_start(i, batch_.env(i).data());
    for (int k = 0; k < batch_steps; ++k) {
      step();
      for (size_t i = 0; i < batch_.size(); ++i)
        recording.step(i, batch_.env(i).data(), batch_.output().episode_ended(i));
    }
    return recording;
  }
  // Every env back to its first initial state: the steps that follow are the recorded ones.
  void restart() {
    std::vector<uint64_t> seeds(batch_.size());
    for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = 1000 + i;
    batch_.reset(seeds);
    experts_.clear();
    for (size_t i = 0; i < batch_.size(); ++i) experts_.emplace_back(batch_.env(i).task());
  }
  // One step of every env; what the batch's step took (not the expert's acting): wall time, and
  // CPU time of the env threads and of this one.
  Spent step() {
    for (size_t i = 0; i < batch_.size(); ++i) {
      const auto a = experts_[i].act(batch_.env(i).state());
      std::copy(a.begin(), a.end(), actions_.begin() + i * action_size);
    }
    const auto start = Clock::now();
    const int64_t workers = batch_.worker_cpu_ns(), caller = thread_cpu_ns();
    batch_.step(actions_.data());
    const int64_t cpu = batch_.worker_cpu_ns() - workers + thread_cpu_ns() - caller;
    const Spent spent{std::chrono::duration<double>(Clock::now() - start).count(),
                      1e-9 * static_cast<double>(cpu)};
    for (size_t i = 0; i < batch_.size(); ++i)
      if (batch_.output().episode_ended(i)) experts_[i].reset(batch_.env(i).task());
    return spent;
  }
  size_t size() const { return batch_.size(); }

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

  std::shared_ptr<const Scene> scene_;  // the batch's model, loaded again: the batch keeps its own
  TabletopBatch batch_;
  std::vector<ScriptedExpert> experts_;
  std::vector<float> actions_;
};

// Keeps the calling thread on the first hardware thread it may use while this lives; threads it
// starts meanwhile inherit that. So the single-thread workload's env thread and the bare loop
// share one: this VM's two ran the same loop up to 40% apart.
class OnOneCpu {
 public:
  OnOneCpu() : before_(affinity_of_this_thread()) {
    if (!before_.empty()) (void)pin_this_thread({before_.front()}, "dvla-bench");
  }
  ~OnOneCpu() { (void)pin_this_thread(before_, "dvla-bench"); }
  OnOneCpu(const OnOneCpu&) = delete;
  OnOneCpu& operator=(const OnOneCpu&) = delete;

 private:
  CpuSet before_;
};

struct AgainstBare {
  double dvla_steps_per_second, bare_steps_per_second;
  double wall_fraction, cpu_fraction;  // dvla's rate over bare's
};

// dvla's first recorded steps and the bare loop's replay of them, alternating step by step, so
// both meet the same machine: on a shared VM its speed drifts by tens of percent within a second.
AgainstBare against_bare(Workload& dvla, BareMujoco& bare, size_t steps) {
  OnOneCpu pinned;
  dvla.restart();
  Spent d, b;
  for (size_t k = 0; k < steps; ++k) {
    d += dvla.step();
    const auto start = Clock::now();
    const int64_t cpu = thread_cpu_ns();
    bare.step(k);
    b += {std::chrono::duration<double>(Clock::now() - start).count(),
          1e-9 * static_cast<double>(thread_cpu_ns() - cpu)};
  }
  const auto n = static_cast<double>(steps * dvla.size());
  return {n / d.wall_s, n / b.wall_s, b.wall_s / d.wall_s, b.cpu_s / d.cpu_s};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double best(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }
double least(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

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
  // What the single-thread workload's envs apply, replayed by the bare loop of every case.
  const auto recording = Workload(cases[0], 1).record(recorded_steps);
  std::vector<std::string> bare_lines;
  for (const auto& c : cases) {
    std::optional<OnOneCpu> pinned(std::in_place);
    Workload single(c, 1);  // its env thread on the first hardware thread, as the bare loop
    pinned.reset();
    Workload parallel(c, cores);
    BareMujoco bare(recording, CameraSettings{c.size, c.front, c.wrist});
    std::vector<double> ones, alls, cpu_ones, cpu_alls, cores_all;
    std::vector<double> env_ones, bares, wall_ratios, ratios;  // against bare MuJoCo
    for (int r = 0; r < rounds; ++r) {
      const auto a = single.measure(options.seconds / rounds);
      const auto pair = against_bare(single, bare, recorded_steps);
      const auto b = parallel.measure(options.seconds / rounds);
      ones.push_back(a.steps_per_second);
      alls.push_back(b.steps_per_second);
      cpu_ones.push_back(a.cpu_us_per_step);
      cpu_alls.push_back(b.cpu_us_per_step);
      cores_all.push_back(b.cores);
      env_ones.push_back(pair.dvla_steps_per_second);
      bares.push_back(pair.bare_steps_per_second);
      wall_ratios.push_back(pair.wall_fraction);
      ratios.push_back(pair.cpu_fraction);
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
    bare_lines.push_back(fmt::format(
        "{:<22} {:>11.0f} ({:>6.0f}) {:>11.0f} ({:>6.0f}) {:>10.2f} {:>10.2f} ({:.2f}-{:.2f})",
        c.name, best(env_ones), median(env_ones), best(bares), median(bares),
        median(wall_ratios), median(ratios), least(ratios), best(ratios)));
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
                    {"env_steps_per_second_1_thread_median", median(env_ones)},
                    {"bare_steps_per_second_median", median(bares)},
                    {"fraction_of_bare", median(ratios)},
                    {"fraction_of_bare_windows", ratios},
                    {"fraction_of_bare_wall", median(wall_ratios)},
                    {"windows_1_thread", ones},
                    {"windows_all_threads", alls}});
  }
  meter.finish();
  fmt::print(
      "\nAgainst bare MuJoCo, 1 thread, {} envs, the same {} steps from the same starts each "
      "round, dvla's and bare's alternating step by step: dvla counts its batch's step (not the "
      "expert's); bare replays the mocap targets and controls dvla's envs applied with mj_step x "
      "{} and, with images, mjv_updateScene + mjr_render + mjr_readPixels per camera (one GL "
      "context and scene for all envs). dvla / bare: env steps per second of wall time and per "
      "second of CPU time (what preemption does not move), per round.\n",
      envs_per_thread, recorded_steps, recording.scene()->substeps());
  fmt::print("{:<22} {:>20} {:>20} {:>10} {:>22}\n", "images", "dvla env /s", "bare /s",
             "wall", "CPU");
  fmt::print("{:<22} {:>20} {:>20} {:>10} {:>22}\n", "", "best (median)", "best (median)",
             "median", "median (range)");
  for (const auto& line : bare_lines) fmt::print("{}\n", line);
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
  result["fraction_of_bare_no_render"] = rows[0]["fraction_of_bare"];
  result["fraction_of_bare_render_64_one_camera"] = rows[1]["fraction_of_bare"];
  result["fraction_of_bare_render_64"] = rows[2]["fraction_of_bare"];
  result["cases"] = rows;
  result["memory"] = memory;
  result["renderer"] = renderer;
  return result;
}

}  // namespace dvla::apps
