// dvla-bench efficiency: what the Swimlane costs in samples. For each seed the same config trains
// in lock-step (sync) and through the Swimlane (async) until an evaluation reaches the target
// (stop.eval_return or stop.eval_success); the env steps and wall seconds each took, and the
// async/sync ratios per seed with their median. Async pays in samples what its policy lag costs
// and wins in wall time what overlapping gains; this suite shows both in one run.
#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/suite_settings.hpp"

namespace dvla::apps {
namespace {

using nlohmann::json;

bool names_target(const BenchOptions& o) {
  return std::any_of(o.settings.begin(), o.settings.end(), [](const auto& kv) {
    return kv.first == "stop.eval_return" || kv.first == "stop.eval_success";
  });
}

// CartPole to a mean evaluation return of 400 unless the settings say otherwise; evaluations of
// every version on 10 episodes. Every 5 versions was too coarse once CartPole learned in 7 or 8
// sync updates: sync was only looked at every 5,120 env steps. The versions wait (eval.backlog)
// and are evaluated once training has ended (eval.deferred): evaluating beside training, even at
// nice 19, slowed async CartPole by a third and sync by a few percent, so the bench measured its
// own evaluations. Each run therefore trains its whole budget; 50,000 env steps is twice the most
// any of 300 seeds needed in either mode.
Expected<Config> efficiency_config(const BenchOptions& o) {
  Config c;
  c.run.max_env_steps = o.steps > 0 ? o.steps : 50'000;
  c.run.progress_interval_s = 1e9;
  c.run.eval_every = 1;
  c.run.eval_episodes = 10;
  c.run.eval_backlog = 100'000;
  c.run.eval_deferred = true;
  c.run.eval_nice = 19;
  if (!names_target(o)) c.run.stop_eval_return = 400;
  if (auto s = apply_config_settings(c, o.settings); !s) return s.error();
  if (c.run.stop_eval_return <= 0 && c.run.stop_eval_success <= 0)
    return Error("efficiency needs a target: stop.eval_return or stop.eval_success");
  return c;
}

std::string target_text(const Config& c) {
  return c.run.stop_eval_success > 0 ? fmt::format("success {:g}", c.run.stop_eval_success)
                                     : fmt::format("mean return {:g}", c.run.stop_eval_return);
}

// One run to the target: the evaluation that reached it, or nothing within max_env_steps.
struct ToTarget {
  std::optional<uint64_t> env_steps;  // when the evaluated version was taken
  double wall_seconds = 0;            // since the run started, when that version was taken
  double run_seconds = 0;             // the whole run, its evaluations' wait included
  uint64_t version = 0;
  double policy_lag_mean = 0;
};

Expected<ToTarget> run_to_target(Config config, RunMode mode) {
  config.run.mode = mode;
  auto result = train(config, default_graph_parts(config));
  if (!result) return result.error().within(std::string(to_text(mode)) + " run");
  ToTarget t;
  const auto& s = result->status;
  t.run_seconds = s.wall_seconds;
  t.version = s.last_evaluation.version;
  t.policy_lag_mean = s.policy_lag_mean;
  if (const auto& first = s.first_at_target; first.episodes > 0) {
    t.env_steps = first.env_steps;
    t.wall_seconds = first.wall_seconds;
    t.version = first.version;
  }
  return t;
}

// Of a non-empty list.
double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

json to_json(const ToTarget& t) {
  return {{"env_steps", t.env_steps ? json(*t.env_steps) : json(nullptr)},
          {"wall_seconds", t.wall_seconds},
          {"run_seconds", t.run_seconds},
          {"version", t.version},
          {"policy_lag_mean", t.policy_lag_mean}};
}

std::string steps_text(const ToTarget& t) {
  return t.env_steps ? std::to_string(*t.env_steps) : "not reached";
}

}  // namespace

Expected<json> bench_efficiency(const BenchOptions& options) {
  auto config = efficiency_config(options);
  if (!config) return config.error();
  const uint64_t first_seed = config->run.seed;
  fmt::print(
      "efficiency: {} to evaluation {} (every {} versions, {} episodes{}), seeds {} to {}, "
      "at most {} env steps per run\n",
      config->env.name, target_text(*config), config->run.eval_every, config->run.eval_episodes,
      config->run.eval_deferred ? ", after training" : "", first_seed,
      first_seed + options.seeds - 1, config->run.max_env_steps);
  fmt::print("  {:>4}  {:>11}  {:>11}  {:>5} | {:>7}  {:>7}  {:>5} | {}\n", "seed", "sync steps",
             "async steps", "ratio", "sync s", "async s", "ratio", "async lag");
  std::fflush(stdout);
  json seeds = json::array();
  std::vector<double> step_ratios, wall_ratios;
  uint64_t sync_total = 0, async_total = 0;
  ProgressMeter meter({"efficiency:", "runs", 2 * static_cast<uint64_t>(options.seeds)});
  for (int i = 0; i < options.seeds; ++i) {
    config->run.seed = first_seed + static_cast<uint64_t>(i);
    auto sync = run_to_target(*config, RunMode::sync);
    if (!sync) return sync.error().within("seed " + std::to_string(config->run.seed));
    meter.update(2 * static_cast<uint64_t>(i) + 1);
    auto async = run_to_target(*config, RunMode::async);
    if (!async) return async.error().within("seed " + std::to_string(config->run.seed));
    json row = {{"seed", config->run.seed}, {"sync", to_json(*sync)}, {"async", to_json(*async)}};
    std::string step_ratio = "-", wall_ratio = "-";
    if (sync->env_steps && async->env_steps) {
      step_ratios.push_back(static_cast<double>(*async->env_steps) / *sync->env_steps);
      wall_ratios.push_back(async->wall_seconds / sync->wall_seconds);
      sync_total += *sync->env_steps;
      async_total += *async->env_steps;
      row["env_steps_ratio"] = step_ratios.back();
      row["wall_seconds_ratio"] = wall_ratios.back();
      step_ratio = fmt::format("{:.2f}", step_ratios.back());
      wall_ratio = fmt::format("{:.2f}", wall_ratios.back());
    }
    meter.note(fmt::format("  {:>4}  {:>11}  {:>11}  {:>5} | {:>7.1f}  {:>7.1f}  {:>5} | {:.2f}",
                           config->run.seed, steps_text(*sync), steps_text(*async), step_ratio,
                           sync->wall_seconds, async->wall_seconds, wall_ratio,
                           async->policy_lag_mean));
    meter.update(2 * static_cast<uint64_t>(i) + 2);
    seeds.push_back(row);
  }
  meter.finish();
  json j = {{"env", config->env.name},
            {"target", target_text(*config)},
            {"seeds", seeds},
            {"pairs_reached", step_ratios.size()}};
  if (step_ratios.empty()) {
    fmt::print("  no seed pair reached the target in both modes: no ratios\n");
    return j;
  }
  j["env_steps_ratio_median"] = median(step_ratios);
  j["env_steps_ratio_pooled"] = static_cast<double>(async_total) / static_cast<double>(sync_total);
  j["wall_seconds_ratio_median"] = median(wall_ratios);
  fmt::print(
      "  async/sync to the target, median over {} seed pairs that both reached it: env steps "
      "{:.2f}x (pooled {:.2f}x), wall seconds {:.2f}x\n",
      step_ratios.size(), median(step_ratios), j["env_steps_ratio_pooled"].get<double>(),
      median(wall_ratios));
  return j;
}

}  // namespace dvla::apps
