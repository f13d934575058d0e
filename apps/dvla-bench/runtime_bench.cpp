// dvla-bench runtime: the runtime's own ceiling. The synthetic env with no latency and the null
// policy leave nothing but dvla's own work (messages, segments, batching, validation) for 1 to 64
// samplers; what a step costs beyond env and policy is the runtime's overhead.
#include <fmt/core.h>

#include <thread>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "common/lane_summary.hpp"
#include "dvla-bench/bench.hpp"

namespace dvla::apps {
namespace {

using nlohmann::json;

Config runtime_config(const BenchOptions& o, int samplers) {
  Config c;
  c.env.name = "synthetic";
  c.model.policy = PolicyKind::null;
  c.graph.samplers = samplers;
  c.graph.envs_per_sampler = 256;
  c.run.max_env_steps = o.steps > 0 ? o.steps : 4'000'000;
  c.run.progress_interval_s = 1e9;
  c.run.eval_episodes = 1;
  // Nothing to learn: one gradient step per large batch keeps the trainer a sink.
  c.ppo.batch_size = 1 << 16;
  c.ppo.minibatch_size = 1 << 16;
  c.ppo.epochs = 1;
  return c;
}

double seconds_of(const LaneReport& r, const char* span) {
  const auto found = r.work_s.find(span);
  return found == r.work_s.end() ? 0.0 : found->second;
}

}  // namespace

Expected<json> bench_runtime(const BenchOptions& options) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  json runs = json::array();
  double best = 0, best_overhead = 0;
  int best_samplers = 0;
  const std::vector<int> sampler_counts{1, 2, 4, 8, 16, 32, 64};
  ProgressMeter meter({"runtime:", "runs", sampler_counts.size()});
  for (int samplers : sampler_counts) {
    auto config = runtime_config(options, samplers);
    for (const auto& [key, value] : options.settings)
      if (auto s = set_config_value(config, key, value); !s) return s.error();
    auto result = train(config, default_graph_parts(config));
    if (!result) return result.error().within(std::to_string(samplers) + " samplers");
    const auto& s = result->status;
    const auto steps = static_cast<double>(s.env_steps);
    // Env and policy work, spread over the cores, taken off the wall time per env step.
    const double work_s =
        (seconds_of(result->lanes, "env_step") + seconds_of(result->lanes, "forward")) / cores;
    const double overhead_us = 1e6 * (s.wall_seconds - work_s) / steps;
    meter.note(fmt::format("{:>3} samplers x {} envs: {:>10.0f} env steps/s, overhead {:.3f} "
                           "us/step | {}",
                           samplers, config.graph.envs_per_sampler, s.steps_per_second,
                           overhead_us, lanes_line(result->lanes)));
    runs.push_back({{"samplers", samplers},
                    {"envs_per_sampler", config.graph.envs_per_sampler},
                    {"steps_per_second", s.steps_per_second},
                    {"overhead_us_per_step", overhead_us},
                    {"env_us_per_step", 1e6 * seconds_of(result->lanes, "env_step") / steps},
                    {"policy_us_per_step", 1e6 * seconds_of(result->lanes, "forward") / steps},
                    {"lane_busy", lane_busy_json(result->lanes)}});
    meter.update(runs.size());
    if (s.steps_per_second > best) {
      best = s.steps_per_second;
      best_overhead = overhead_us;
      best_samplers = samplers;
    }
  }
  meter.finish();
  fmt::print("best: {} samplers, {:.0f} env steps/s, {:.3f} us overhead per env step\n",
             best_samplers, best, best_overhead);
  return json{{"runs", runs},
              {"steps_per_second", best},
              {"overhead_us_per_step", best_overhead},
              {"best_samplers", best_samplers},
              {"cores", cores}};
}

}  // namespace dvla::apps
