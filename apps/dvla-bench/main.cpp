// dvla-bench SUITE: measurements of dvla's parts, each in one run. A readable table on stdout;
// with --json, one JSON object as the last stdout line.
#include <fmt/core.h>

#include <map>
#include <string>

#include <dvla/runtime/platform/blas_info.hpp>
#include "common/command_line.hpp"
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
        "without rendering; memory per env"}},
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

dvla::Expected<double> positive_number(const std::string& text) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(x > 0))
    return dvla::Error("'" + text + "' is not a positive number");
  return x;
}

std::string help() {
  std::string text =
      "dvla-bench: measure dvla's parts.\n\nUsage: dvla-bench SUITE [--json] [--seconds S] "
      "[--episodes N]\n                  [--workload NAME] [--steps N] [--latency-us N] "
      "[--seeds N] [--set KEY=VALUE]\n\nSuites:\n";
  for (const auto& [name, suite] : suites())
    text += fmt::format("  {:<12} {}\n", name, suite.second);
  text +=
      "\nFlags:\n"
      "  --json          print the figures as one JSON object on the last stdout line\n"
      "  --seconds S     seconds per timed figure (default 2); soak: per workload (3600)\n"
      "  --episodes N    episodes per family for the expert suite (default 200)\n"
      "  --workload NAME pipeline: synthetic | cartpole | tabletop | all (default all; the\n"
      "                  first one's figures lead the JSON, all are under 'workloads')\n"
      "  --steps N       pipeline: env steps per mode (default: 200000; tabletop 20000);\n"
      "                  runtime: env steps per sampler count (default 4000000);\n"
      "                  backpressure: env steps (default 150000);\n"
      "                  efficiency: env steps at most per run (default 300000)\n"
      "  --latency-us N  pipeline: synthetic env latency per env step (default 40)\n"
      "  --seeds N       efficiency: seed pairs, from the config's seed (default 5)\n"
      "  --set KEY=VALUE pipeline, runtime, backpressure, efficiency, soak: a config key (as for\n"
      "                  dvla-ppo; efficiency: stop.eval_return or stop.eval_success sets the\n"
      "                  target);\n"
      "                  planes: sources, credits, segment_kib, work_us, rounds;\n"
      "                  memory: kind (host|cuda), total_mib, weights_mib, sim_live_mib, cycles;\n"
      "                  replication: params_m, replicas (one size only), nodes (the most),\n"
      "                  versions, fanout, chunk_kib\n";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  // The far side of the planes suite, started by it.
  if (argc > 1 && std::string(argv[1]) == "planes-worker")
    return dvla::apps::planes::run_worker(argc, argv);
  if (argc > 1 && std::string(argv[1]) == "replication-worker")
    return dvla::apps::replication::run_worker(argc, argv);
  dvla::apps::CommandLine line(argc, argv);
  BenchOptions options;
  bool json = false;
  std::string suite;
  while (!line.done()) {
    const std::string word = line.take();
    if (word == "--help" || word == "-h") {
      fmt::print("{}", help());
      return 0;
    } else if (word == "--json") {
      json = true;
    } else if (word == "--workload" || word == "--set") {
      auto v = line.value_of(word);
      const auto eq = v ? v->find('=') : std::string::npos;
      if (!v || (word == "--set" && eq == std::string::npos)) {
        fmt::print(stderr, "dvla-bench: {}\n",
                   v ? word + " needs key=value, got '" + *v + "'" : v.error().message());
        return 2;
      }
      if (word == "--workload")
        options.workload = *v;
      else
        options.settings.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else if (word == "--seconds" || word == "--episodes" || word == "--steps" ||
               word == "--latency-us" || word == "--seeds") {
      auto v = line.value_of(word);
      auto x = v ? positive_number(*v) : dvla::Expected<double>(v.error());
      if (!x) {
        fmt::print(stderr, "dvla-bench: {}: {}\n", word, x.error().message());
        return 2;
      }
      if (word == "--seconds")
        options.seconds = *x, options.seconds_given = true;
      else if (word == "--episodes")
        options.episodes = static_cast<int>(*x);
      else if (word == "--steps")
        options.steps = static_cast<uint64_t>(*x);
      else if (word == "--seeds")
        options.seeds = static_cast<int>(*x);
      else
        options.latency_us = static_cast<int64_t>(*x);
    } else if (suite.empty() && word.rfind("--", 0) != 0) {
      suite = word;
    } else {
      fmt::print(stderr, "dvla-bench: unexpected argument '{}'\n{}", word, help());
      return 2;
    }
  }
  const auto found = suites().find(suite);
  if (found == suites().end()) {
    fmt::print(stderr, "dvla-bench: {}\n{}",
               suite.empty() ? "which suite?" : "unknown suite '" + suite + "'", help());
    return 2;
  }
  fmt::print("BLAS: {}\n", dvla::loaded_blas());
  try {
    auto result = found->second.first(options);
    if (!result) {
      fmt::print(stderr, "dvla-bench {}: {}\n", suite, result.error().message());
      return 1;
    }
    (*result)["suite"] = suite;
    (*result)["blas"] = dvla::loaded_blas();
    if (json) fmt::print("{}\n", result->dump());
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-bench {}: {}\n", suite, e.what());
    return 1;
  }
  return 0;
}
