// dvla-bench backpressure: the Swimlane with a throttled trainer (many epochs per batch). Credits
// must slow the samplers down to the trainer's pace, so resident memory stays flat instead of
// growing with queued segments.
#include <fmt/core.h>

#include <algorithm>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include "common/lane_summary.hpp"
#include "dvla-bench/bench.hpp"
#include "dvla-bench/resident_memory.hpp"

namespace dvla::apps {
namespace {

constexpr double startup_s = 5;

}  // namespace

Expected<nlohmann::json> bench_backpressure(const BenchOptions& options) {
  Config c;
  c.run.max_env_steps = options.steps > 0 ? options.steps : 150'000;
  c.run.progress_interval_s = 0.5;
  c.run.eval_episodes = 1;
  c.ppo.epochs = 40;  // a trainer ten times slower than usual: the samplers must wait for it
  for (const auto& [key, value] : options.settings)
    if (auto s = set_config_value(c, key, value); !s) return s.error();
  std::vector<std::pair<double, double>> samples;  // (wall seconds, resident MiB)
  auto result = train(c, default_graph_parts(c), [&](const RunStatus& s) {
    samples.emplace_back(s.wall_seconds, resident_mib());
  });
  if (!result) return result.error();
  if (samples.empty() || samples.back().first < 2 * startup_s)
    return Error("the run was too short to watch memory after start-up; raise --steps");
  // After start-up (allocators and LibTorch warming up) memory must not grow with the run.
  size_t settled = 0;
  while (settled + 2 < samples.size() && samples[settled].first < startup_s) ++settled;
  double low = samples[settled].second, high = low;
  for (size_t i = settled; i < samples.size(); ++i) {
    low = std::min(low, samples[i].second);
    high = std::max(high, samples[i].second);
  }
  fmt::print(
      "throttled trainer ({} epochs per batch): {:.0f} env steps/s, training lane {:.0f}% "
      "busy, sampling lane {:.0f}% busy\n",
      c.ppo.epochs, result->status.steps_per_second,
      100 * result->lanes[Lane::training].busy_fraction,
      100 * result->lanes[Lane::sampling].busy_fraction);
  for (size_t i = 0; i < samples.size(); i += std::max<size_t>(1, samples.size() / 8))
    fmt::print("  {:6.1f} s  {:7.1f} MiB resident\n", samples[i].first, samples[i].second);
  fmt::print(
      "after start-up ({:.0f} s): {:.1f} to {:.1f} MiB ({:+.1f}%); trainer queue peak {} "
      "segments\n",
      samples[settled].first, low, high, 100 * (high - low) / low,
      result->lanes.queue_peaks["trainer"]);
  const auto& control = result->status.control;
  fmt::print(
      "control round trips to every actor's endpoint meanwhile: {} rounds, mean {:.0f} us, max "
      "{:.0f} us\n",
      control.rounds, control.mean_us, control.max_us);
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [t, mib] : samples) curve.push_back({t, mib});
  return nlohmann::json{{"steps_per_second", result->status.steps_per_second},
                        {"resident_mib_low", low},
                        {"resident_mib_high", high},
                        {"resident_growth", (high - low) / low},
                        {"trainer_queue_peak", result->lanes.queue_peaks["trainer"]},
                        {"lane_busy", lane_busy_json(result->lanes)},
                        {"control_rtt_us_mean", control.mean_us},
                        {"control_rtt_us_max", control.max_us},
                        {"resident_mib_curve", curve}};
}

}  // namespace dvla::apps
