// dvla-bench pipeline: one workload trained in lock-step (mode sync) and then through the
// Swimlane (mode async) in one process, with the same config, seeds and env-step budget. The
// sync run's lane costs and CPU time give the speedup overlapping could reach at best
// (ideal_speedup).
#include <fmt/core.h>

#include <algorithm>
#include <initializer_list>
#include <thread>
#include <utility>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "common/lane_summary.hpp"
#include "dvla-bench/bench.hpp"
#include "dvla-bench/suite_settings.hpp"

namespace dvla::apps {
namespace {

using nlohmann::json;

struct Workload {
  std::string name;
  std::string description;
  Config config;
};

Config base_config(const BenchOptions& o, uint64_t default_steps) {
  Config c;
  c.run.max_env_steps = o.steps > 0 ? o.steps : default_steps;
  c.run.progress_interval_s = 1e9;  // no progress reports: nothing but the workload runs
  c.run.eval_episodes = 1;
  return c;
}

// A simulator or robot that costs wall time per batched step but no local CPU.
Workload synthetic(const BenchOptions& o) {
  Workload w{"synthetic", fmt::format("synthetic env, {} us per env step (sleeping)", o.latency_us),
             base_config(o, 200'000)};
  w.config.env.name = "synthetic";
  w.config.env.synthetic.step_latency_us = o.latency_us;
  // 16 envs per sampler: forward passes of 8 envs per buffer, cheap next to the env time.
  w.config.graph.envs_per_sampler = 16;
  return w;
}

Workload cartpole(const BenchOptions& o) {
  Workload w{"cartpole", "CartPole, MLP policy", base_config(o, 200'000)};
  w.config.env.name = "cartpole";
  return w;
}

Workload tabletop(const BenchOptions& o) {
  Workload w{"tabletop", "tabletop lift, 32x32 cameras, small VLA, one env buffer per sampler",
             base_config(o, 20'000)};
  auto& c = w.config;
  c.env.name = "tabletop";
  c.env.tabletop.suite = "lift";
  c.env.tabletop.image_size = 32;
  c.env.tabletop.threads = 1;
  c.graph.envs_per_sampler = 16;
  // One env buffer per sampler, as in lock-step: with inference on these cores, two samplers
  // already overlap each other, and double buffering would halve every forward pass's batch
  // (more inference CPU per env step, taken from the trainer that bounds this workload).
  c.graph.env_buffers = 1;
  // The update its figures were measured with (docs/results.md, issue 28): the PPO defaults
  // before issue 26 made updates smaller and value the batch with the learner's critic.
  c.ppo.batch_size = 1024;
  c.graph.segment_length = 64;
  c.ppo.advantage_values = AdvantageValues::behaviour;
  return w;
}

// One mode's runs of a workload, summed over the rounds.
struct ModeRun {
  uint64_t env_steps = 0;
  double wall_s = 0;
  std::vector<uint64_t> lag_samples;  // [lag]: trained samples that many versions behind
  LaneReport lanes;

  double steps_per_second() const {
    return wall_s > 0 ? static_cast<double>(env_steps) / wall_s : 0.0;
  }
  double policy_lag_mean() const {
    double trained = 0, versions = 0;
    for (size_t lag = 0; lag < lag_samples.size(); ++lag) {
      trained += static_cast<double>(lag_samples[lag]);
      versions += static_cast<double>(lag * lag_samples[lag]);
    }
    return trained > 0 ? versions / trained : 0.0;
  }
  void add(const RunStatus& status, const LaneReport& part) {
    env_steps += status.env_steps;
    wall_s += status.wall_seconds;
    const auto& lags = status.policy_lag_samples;
    if (lag_samples.size() < lags.size()) lag_samples.resize(lags.size());
    for (size_t lag = 0; lag < lags.size(); ++lag) lag_samples[lag] += lags[lag];
    accumulate(lanes, part);
  }
};

// The process's CPU seconds per env step of a mode's runs.
double cpu_per_env_step(const ModeRun& run) {
  return run.env_steps > 0 ? run.lanes.process_cpu_s / static_cast<double>(run.env_steps) : 0.0;
}

// One run of `config` in `mode`, added to `into`; `meter` counts env steps over all runs, this
// run's start at `before`.
Status run_mode(Config config, RunMode mode, ProgressMeter& meter, uint64_t before, ModeRun& into) {
  config.run.mode = mode;
  auto result = train(config, default_graph_parts(config), [&](const RunStatus& s) {
    meter.update(before + s.env_steps, std::string(to_text(mode)));
  });
  if (!result) return result.error().within(std::string(to_text(mode)) + " run");
  into.add(result->status, result->lanes);
  return Status::ok();
}

// The modes alternate round by round, each round a run of steps / rounds per mode, so that a
// machine whose speed drifts (a shared VM) slows both modes alike.
Expected<json> compare(const Workload& w, int rounds, int cores, ProgressMeter& meter,
                       uint64_t before) {
  const uint64_t steps = w.config.run.max_env_steps;
  meter.note(fmt::format("{}: {} ({} env steps per mode{})", w.name, w.description, steps,
                         rounds > 1 ? fmt::format(", in {} alternating rounds", rounds) : ""));
  ModeRun sync, async;
  for (int r = 0; r < rounds; ++r) {
    Config round = w.config;
    round.run.max_env_steps = steps / rounds + (r < static_cast<int>(steps % rounds) ? 1 : 0);
    for (auto [mode, into] : {std::pair{RunMode::sync, &sync}, std::pair{RunMode::async, &async}}) {
      const uint64_t done = before + sync.env_steps + async.env_steps;
      if (auto s = run_mode(round, mode, meter, done, *into); !s)
        return s.error().within(fmt::format("round {} of {}", r + 1, rounds));
    }
  }
  const double speedup = async.steps_per_second() / sync.steps_per_second();
  const double ideal = ideal_speedup(sync.lanes, sync.env_steps, cores);
  LaneReport lanes_only = sync.lanes;  // the bound as it was before the runtime's CPU counted
  lanes_only.process_cpu_s = 0;
  const double ideal_lanes = ideal_speedup(lanes_only, sync.env_steps, cores);
  // Where a CPU-bound pipeline loses against the ideal: cores left idle, and work that costs
  // more CPU per env step than in lock-step (its own extra work, or work slowed by sharing the
  // machine with other work); efficiency is about cores used / cores / CPU ratio.
  const double cores_used =
      async.lanes.wall_s > 0 ? async.lanes.process_cpu_s / async.lanes.wall_s : 0.0;
  const double cpu_ratio = cpu_per_env_step(async) / std::max(cpu_per_env_step(sync), 1e-12);
  json j = {{"sync_steps_per_second", sync.steps_per_second()},
            {"async_steps_per_second", async.steps_per_second()},
            {"speedup", speedup},
            {"ideal_speedup", ideal},
            {"ideal_speedup_lanes_cpu", ideal_lanes},
            {"efficiency", ideal > 0 ? speedup / ideal : 0.0},
            {"lane_busy", lane_busy_json(async.lanes)},
            {"sync_lane_busy", lane_busy_json(sync.lanes)},
            {"lanes", lanes_json(async.lanes)},
            {"sync_lanes", lanes_json(sync.lanes)},
            {"work_seconds", work_json(async.lanes)},
            {"sync_work_seconds", work_json(sync.lanes)},
            {"process_cpu_seconds", async.lanes.process_cpu_s},
            {"sync_process_cpu_seconds", sync.lanes.process_cpu_s},
            {"lanes_cpu_seconds", lanes_cpu_s(async.lanes)},
            {"sync_lanes_cpu_seconds", lanes_cpu_s(sync.lanes)},
            {"async_cores_used", cores_used},
            {"cpu_per_env_step_ratio", cpu_ratio},
            {"policy_lag_mean", async.policy_lag_mean()},
            {"policy_lag_distribution", policy_lag_json(async.lag_samples)},
            {"rounds", rounds},
            {"cores", cores}};
  meter.note(fmt::format("  sync  {:>9.0f} steps/s | {} | {}", sync.steps_per_second(),
                         lanes_line(sync.lanes), cpu_line(sync.lanes)));
  meter.note(fmt::format("  async {:>9.0f} steps/s | {} | {}", async.steps_per_second(),
                         lanes_line(async.lanes), cpu_line(async.lanes)));
  meter.note(fmt::format(
      "  speedup {:.2f}, ideal {:.2f} ({:.2f} counting the lanes' CPU only), "
      "efficiency {:.2f}, async policy lag {:.2f}",
      speedup, ideal, ideal_lanes, j["efficiency"].get<double>(), async.policy_lag_mean()));
  meter.note(fmt::format("  async used {:.2f} of {} cores, at {:.2f}x sync's CPU per env step",
                         cores_used, cores, cpu_ratio));
  return j;
}

}  // namespace

Expected<json> bench_pipeline(const BenchOptions& options) {
  std::vector<Workload> workloads;
  for (auto make : {synthetic, cartpole, tabletop}) {
    auto w = make(options);
    if (options.workload != "all" && options.workload != w.name) continue;
    if (auto s = apply_config_settings(w.config, options.settings); !s)
      return s.error().within(w.name);
    workloads.push_back(w);
  }
  if (workloads.empty())
    return Error("workload '" + options.workload + "' is not synthetic, cartpole, tabletop or all");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  json all = json::object();
  uint64_t total = 0;
  for (const auto& w : workloads) total += 2 * w.config.run.max_env_steps;
  ProgressMeter meter({"pipeline:", "env steps", total});
  uint64_t before = 0;
  for (const auto& w : workloads) {
    auto figures = compare(w, options.rounds, cores, meter, before);
    if (!figures) return figures.error().within(w.name);
    all[w.name] = *figures;
    before += 2 * w.config.run.max_env_steps;
  }
  meter.finish();
  // The first workload's figures (the synthetic one, unless another was chosen) lead.
  json summary = all[workloads.front().name];
  summary["workload"] = workloads.front().name;
  summary["workloads"] = all;
  return summary;
}

}  // namespace dvla::apps
