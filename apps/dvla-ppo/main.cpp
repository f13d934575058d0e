// dvla-ppo: trains through the actor graph, shows progress, evaluates, and summarises.
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "actors/training.hpp"
#include "apps/dvla-ppo/options.hpp"
#include "runtime/blas_info.hpp"
#include "runtime/evaluation.hpp"
#include "runtime/graph_parts.hpp"
#include "runtime/weights_file.hpp"

namespace {

using dvla::Config;
using dvla::RunStatus;
using nlohmann::json;

json status_json(const RunStatus& s) {
  return {{"env_steps", s.env_steps},
          {"wall_seconds", s.wall_seconds},
          {"steps_per_second", s.steps_per_second},
          {"episodes", s.episodes},
          {"train_mean_return", s.mean_return},
          {"train_success", s.success_rate},
          {"version", s.version},
          {"policy_lag_mean", s.policy_lag_mean},
          {"samples_trained", s.samples_trained},
          {"dropped_stale", s.dropped_stale},
          {"rejected_messages", s.rejected_messages}};
}

void print_progress(const RunStatus& s) {
  fmt::print(
      "[{:7.1f}s] env steps {:>9} ({:>7.0f}/s) | mean return {:7.1f} over last {} eps | "
      "version {:>4} | lag {:4.2f} | dropped {}\n",
      s.wall_seconds, s.env_steps, s.steps_per_second, s.mean_return,
      std::min<uint64_t>(s.episodes, 100), s.version, s.policy_lag_mean, s.dropped_stale);
  std::fflush(stdout);
}

// Appends one JSON line per progress report under logdir.
class ProgressLog {
 public:
  explicit ProgressLog(const std::string& logdir) {
    if (!logdir.empty()) out_.open(std::filesystem::path(logdir) / "progress.jsonl");
  }
  void write(const RunStatus& s) {
    if (out_) out_ << status_json(s).dump() << "\n" << std::flush;
  }

 private:
  std::ofstream out_;
};

int run(const dvla::apps::PpoOptions& options) {
  const Config& config = options.config;
  const auto& logdir = config.run.logdir;
  if (!logdir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(logdir, ec);
    if (ec) {
      fmt::print(stderr, "dvla-ppo: cannot create logdir '{}': {}\n", logdir, ec.message());
      return 1;
    }
    std::ofstream(std::filesystem::path(logdir) / "config.txt") << dvla::dump_config(config);
  }
  fmt::print(
      "dvla-ppo: {} {} on {}, {} samplers x {} envs, {} inference, 1 trainer, seed {}, "
      "{} env steps\nBLAS: {}\n",
      config.run.mode, config.run.algo, config.env.name, config.graph.samplers,
      config.graph.envs_per_sampler, config.graph.inference_replicas, config.run.seed,
      config.run.max_env_steps, dvla::loaded_blas());
  std::fflush(stdout);

  ProgressLog log(logdir);
  const auto parts = dvla::default_graph_parts(config);
  auto result = dvla::train(config, parts, [&](const RunStatus& s) {
    print_progress(s);
    log.write(s);
  });
  if (!result) {
    fmt::print(stderr, "dvla-ppo: training failed: {}\n", result.error().message());
    return 1;
  }
  if (!logdir.empty())
    if (auto saved = dvla::save_weights((std::filesystem::path(logdir) / "final.weights").string(),
                                        result->weights);
        !saved) {
      fmt::print(stderr, "dvla-ppo: {}\n", saved.error().message());
      return 1;
    }
  auto eval = dvla::evaluate_weights(parts, config, result->weights);
  if (!eval) {
    fmt::print(stderr, "dvla-ppo: {}\n", eval.error().message());
    return 1;
  }
  const auto& s = result->status;
  // Success means something only for envs with tasks (the tabletop suite), not for CartPole.
  const bool tasks = !eval->per_task.empty();
  fmt::print(
      "done: {} env steps in {:.1f}s ({:.0f}/s), version {}, policy lag {:.2f}, {} dropped "
      "as stale\nevaluation: mean return {:.1f} over {} episodes (mean length {:.1f}){}\n",
      s.env_steps, s.wall_seconds, s.steps_per_second, s.version, s.policy_lag_mean,
      s.dropped_stale, eval->mean_return, eval->episodes, eval->mean_length,
      tasks ? fmt::format(", success {:.1f}%", 100 * eval->success_rate) : "");
  for (const auto& [family, count] : eval->per_family)
    fmt::print("  {:<11} {:5.1f}% ({}/{})\n", family, 100 * count.rate(), count.successes,
               count.episodes);
  json summary = status_json(s);
  summary["eval_mean_return"] = eval->mean_return;
  summary["eval_episodes"] = eval->episodes;
  summary["eval_mean_length"] = eval->mean_length;
  if (tasks) {
    summary["eval_success"] = eval->success_rate;
    for (const auto& [name, c] : eval->per_family) summary["eval_success_family"][name] = c.rate();
    for (const auto& [name, c] : eval->per_task) summary["eval_success_task"][name] = c.rate();
  }
  summary["env"] = config.env.name;
  summary["mode"] = config.run.mode;
  summary["algo"] = config.run.algo;
  summary["seed"] = config.run.seed;
  summary["blas"] = dvla::loaded_blas();
  if (!logdir.empty())
    std::ofstream(std::filesystem::path(logdir) / "summary.json") << summary.dump(2) << "\n";
  if (options.json) fmt::print("{}\n", summary.dump());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = dvla::apps::parse_ppo_options(argc, argv);
  if (!options) {
    fmt::print(stderr, "dvla-ppo: {}\n(dvla-ppo --help lists the flags and config keys)\n",
               options.error().message());
    return 2;
  }
  if (options->help) {
    fmt::print("{}", dvla::apps::ppo_help());
    return 0;
  }
  try {
    return run(*options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-ppo: {}\n", e.what());
    return 1;
  }
}
