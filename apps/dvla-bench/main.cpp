// dvla-bench SUITE: measurements of dvla's parts, each in one run. A readable table on stdout;
// with --json, one JSON object as the last stdout line.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <map>
#include <string>

#include <dvla/runtime/platform/blas_info.hpp>
#include <dvla/runtime/platform/parallel_capacity.hpp>
#include "common/command_line.hpp"
#include "common/config_flags.hpp"
#include "dvla-bench/bench.hpp"
#include "dvla-bench/planes_actors.hpp"

namespace {

using dvla::apps::BenchOptions;
using Suite = dvla::Expected<nlohmann::json> (*)(const BenchOptions&);

const std::map<std::string, std::pair<Suite, const char*>>& suites() {
  static const std::map<std::string, std::pair<Suite, const char*>> s{
      {"backpressure",
       {dvla::apps::bench_backpressure,
        "a throttled trainer: resident memory over the run stays flat"}},
      {"cluster",
       {dvla::apps::bench_cluster,
        "a coordinator and 1, 2, 4 node processes on 127.0.0.1 (sleep-bound synthetic env): "
        "env steps/s and the ratio to one node; control round trips under a segment flood "
        "across processes, planes split and shared"}},
      {"efficiency",
       {dvla::apps::bench_efficiency,
        "sync vs async env steps and wall seconds to an evaluation target per seed, and "
        "their ratios (CartPole to mean return 400 unless --set says otherwise)"}},
      {"env",
       {dvla::apps::bench_env,
        "tabletop env steps/s per thread and aggregate, with and "
        "without rendering, and as a fraction of bare MuJoCo's; memory per env"}},
      {"expert",
       {dvla::apps::bench_expert,
        "scripted expert, random and zero-action success "
        "per tabletop task family"}},
      {"memory",
       {dvla::apps::bench_memory,
        "simulator churn and model weight updates against one shared pool and the dual "
        "pools at the same budget: the model's failed large allocations"}},
      {"pipeline",
       {dvla::apps::bench_pipeline,
        "sync (lock-step) vs async (Swimlane) training throughput, speedup, "
        "ideal speedup from lane costs, lane busy, policy lag"}},
      {"planes",
       {dvla::apps::bench_planes,
        "control round trips idle and under a data-plane flood from another process: "
        "planes split (own systems and connections), sharing a connection, sharing a mailbox"}},
      {"replication",
       {dvla::apps::bench_replication,
        "weight versions of a 25M/100M-parameter policy to 1-8 node processes on 127.0.0.1 "
        "(1 and 4 replicas each): learner bytes per version and time to the last replica, one "
        "copy per replica vs once per node vs a relay tree; local fan-out vs one memcpy"}},
      {"soak",
       {dvla::apps::bench_soak,
        "an hour each (or --seconds) of CartPole and the synthetic env with checkpoints and "
        "evaluations: resident memory and open file descriptors, growth per hour"}},
      {"runtime",
       {dvla::apps::bench_runtime,
        "the runtime's ceiling: zero-latency synthetic env, null policy, "
        "1 to 64 samplers; env steps/s and overhead per env step"}},
  };
  return s;
}

const char* set_help =
    "pipeline, runtime, backpressure, efficiency, soak: a config key (as for dvla-ppo, listed "
    "below; efficiency: stop.eval_return or stop.eval_success sets the target); planes: sources, "
    "credits, segment_kib, work_us, rounds; cluster: latency_us (per env step), nodes (the most), "
    "and the planes keys; memory: kind (host|cuda), total_mib, weights_mib, "
    "sim_live_mib, cycles; replication: params_m, replicas (one size only), nodes (the most), "
    "versions, fanout, chunk_kib";

void add_flags(CLI::App& app, dvla::apps::ConfigFlags& flags, BenchOptions& o, bool& json) {
  using dvla::apps::flag_help;
  app.add_flag("--json", json, "print the figures as one JSON object on the last stdout line");
  app.add_option_function<double>(
         "--seconds",
         [&o](double s) {
           o.seconds = s;
           o.seconds_given = true;
         },
         "seconds per timed figure (default 2); soak: per workload (3600)")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  app.add_option("--episodes", o.episodes, "expert: episodes per family")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--workload", o.workload,
                 flag_help("pipeline: synthetic | cartpole | tabletop | all (the first one's "
                           "figures lead the JSON, all are under 'workloads')"))
      ->type_name("NAME")
      ->check(CLI::IsMember({"synthetic", "cartpole", "tabletop", "all"}))
      ->capture_default_str();
  app.add_option("--steps", o.steps,
                 flag_help("pipeline: env steps per mode (default: 200000; tabletop 20000); "
                           "runtime: env steps per sampler count (default 4000000); "
                           "backpressure: env steps (default 150000); efficiency: env steps "
                           "each run trains (default 50000)"))
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  app.add_option("--latency-us", o.latency_us, "pipeline: synthetic env latency per env step")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}))
      ->capture_default_str();
  app.add_option("--rounds", o.rounds,
                 "pipeline: runs per mode, sync and async alternating, the env steps split "
                 "among them (figures over all; a drifting machine slows both modes alike)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--seeds", o.seeds, "efficiency: seed pairs, from the config's seed")
      ->type_name("N")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  flags.add_set_flag(set_help);
}

}  // namespace

int main(int argc, char** argv) {
  // The far side of the planes suite, started by it.
  if (argc > 1 && std::string(argv[1]) == "planes-worker")
    return dvla::apps::planes::run_worker(argc, argv);
  if (argc > 1 && std::string(argv[1]) == "replication-worker")
    return dvla::apps::replication::run_worker(argc, argv);
  CLI::App app(dvla::apps::app_description("dvla-bench: measure dvla's parts, each suite in one "
                                           "run; ratios come from the same run."),
               "dvla-bench");
  dvla::apps::use_dvla_help_format(app);
  app.fallthrough();  // the flags may follow the suite: dvla-bench pipeline --steps 1000
  app.require_subcommand(0, 1);  // none: "which suite?" below, naming them
  BenchOptions options;
  bool json = false;
  dvla::apps::ConfigFlags flags(app);
  add_flags(app, flags, options, json);
  std::string suite;
  for (const auto& [name, entry] : suites())
    app.add_subcommand(name, dvla::apps::flag_help(entry.second))
        ->callback([&suite, name = name] { suite = name; })
        ->footer("Its flags are dvla-bench's (dvla-bench --help), before or after its name.");
  app.footer(dvla::apps::config_keys_help);
  if (auto status = dvla::apps::parse_command_line(app, argc, argv)) return *status;
  for (const auto& [key, value] : flags.settings()) options.settings.emplace_back(key, value);
  const auto found = suites().find(suite);
  if (found == suites().end()) {
    std::string names;
    for (const auto& entry : suites()) names += (names.empty() ? "" : ", ") + entry.first;
    return dvla::apps::refuse_command_line("dvla-bench", "which suite? (" + names + ")");
  }
  fmt::print("BLAS: {}\n", dvla::loaded_blas());
  // Read before the suite starts its threads: what the machine gives two lanes at once.
  const auto capacity = dvla::measure_parallel_capacity();
  fmt::print("machine: {}\n", capacity.text());
  std::fflush(stdout);
  try {
    auto result = found->second.first(options);
    if (!result) {
      fmt::print(stderr, "dvla-bench {}: {}\n", suite, result.error().message());
      return 1;
    }
    (*result)["suite"] = suite;
    (*result)["blas"] = dvla::loaded_blas();
    (*result)["parallel_capacity"] = {
        {"threads", capacity.threads},
        {"speedup", capacity.speedup},
        {"one_thread_rounds_per_s", capacity.one_thread_rounds_per_s}};
    if (json) fmt::print("{}\n", result->dump());
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-bench {}: {}\n", suite, e.what());
    return 1;
  }
  return 0;
}
