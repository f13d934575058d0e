// dvla-bench cluster: a multi-node run's throughput on this machine — a coordinator (dvla-ppo
// --listen) and 1, 2 and 4 node processes (dvla-node), each node the same size (one sampler of 8
// envs of the synthetic env, whose steps sleep, so that loopback nodes can scale on few cores;
// the null policy, so the learner keeps up). The env steps/s of each cluster size and its ratio to
// one node; then control round trips under a segment flood across processes, with the planes
// split and shared (the planes suite's measurement).
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include <dvla/runtime/progress/progress_meter.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/child_process.hpp"
#include "dvla-bench/suite_settings.hpp"

namespace dvla::apps {
namespace {

struct ClusterSetup {
  std::vector<int> node_counts = {1, 2, 4};
  uint64_t steps_per_node = 40'000;
  int64_t latency_us = 250;  // per env step: 8 envs x 250 us = 2 ms a batch, ~4000 steps/s a node
};

struct ClusterFigures {
  double steps_per_second = 0;  // the nodes' rates summed (each since its samplers started)
  double policy_lag = 0;
  double segment_mb = 0;
  uint64_t env_steps = 0;
};

Expected<ClusterFigures> run_cluster(int nodes, const ClusterSetup& c) {
  const auto latency = std::to_string(c.latency_us);
  ChildProcess coordinator(
      sibling("dvla-ppo"),
      {"--listen", "127.0.0.1:0", "--nodes", std::to_string(nodes), "--env", "synthetic", "--set",
       "synthetic.step_latency_us=" + latency, "--set", "model.policy=null", "--set",
       "eval.episodes=0", "--max-env-steps", std::to_string(c.steps_per_node * nodes), "--json"},
      ChildProcess::Stderr::with_stdout);
  const std::regex port_line("^dvla: coordinator port ([0-9]+)$");
  std::string port;
  for (;;) {
    auto line = coordinator.read_line();
    if (!line) return Error("the coordinator ended before it listened");
    std::smatch m;
    if (std::regex_match(*line, m, port_line)) {
      port = m[1];
      break;
    }
  }
  std::vector<std::unique_ptr<ChildProcess>> node_processes;
  for (int i = 0; i < nodes; ++i)
    node_processes.push_back(std::make_unique<ChildProcess>(
        sibling("dvla-node"),
        std::vector<std::string>{"--coordinator", "127.0.0.1:" + port, "--name",
                                 "node-" + std::to_string(i + 1), "--samplers", "1"},
        ChildProcess::Stderr::discard));
  for (;;) {
    auto line = coordinator.read_line();
    if (!line) return Error("the coordinator ended without a summary");
    if (line->empty() || line->front() != '{') continue;
    const auto summary = nlohmann::json::parse(*line, nullptr, false);
    if (!summary.is_object()) return Error("the coordinator's summary is not JSON");
    ClusterFigures f;
    f.env_steps = summary["env_steps"].get<uint64_t>();
    f.policy_lag = summary["policy_lag_mean"].get<double>();
    for (const auto& n : summary["nodes"]) {
      f.steps_per_second += n["steps_per_second"].get<double>();
      f.segment_mb += n["segment_bytes"].get<double>() / 1e6;
    }
    if (summary["nodes"].size() != static_cast<size_t>(nodes))
      return Error("the coordinator reports " + std::to_string(summary["nodes"].size()) +
                   " nodes of " + std::to_string(nodes));
    return f;
  }
}

}  // namespace

// The cluster's own settings (latency_us: per env step; nodes: the most nodes) applied to `c`;
// the rest are the planes part's.
Expected<BenchOptions> apply_cluster_settings(const BenchOptions& options, ClusterSetup& c) {
  BenchOptions planes = options;
  planes.settings.clear();
  std::vector<std::pair<std::string, std::string>> own;
  for (const auto& s : options.settings)
    (s.first == "latency_us" || s.first == "nodes" ? own : planes.settings).push_back(s);
  int64_t max_nodes = c.node_counts.back();
  auto applied = apply_whole_settings(own, {{"latency_us", [&](int64_t v) { c.latency_us = v; }},
                                            {"nodes", [&](int64_t v) { max_nodes = v; }}});
  if (!applied) return applied.error();
  c.node_counts.erase(std::remove_if(c.node_counts.begin(), c.node_counts.end(),
                                     [&](int n) { return n > max_nodes; }),
                      c.node_counts.end());
  if (c.node_counts.empty()) return Error("cluster: nodes must be at least 1");
  return planes;
}

Expected<nlohmann::json> bench_cluster(const BenchOptions& options) {
  ClusterSetup c;
  if (options.steps > 0) c.steps_per_node = options.steps;
  auto planes_options = apply_cluster_settings(options, c);
  if (!planes_options) return planes_options.error();
  fmt::print(
      "cluster on 127.0.0.1: a coordinator and N node processes, each 1 sampler x 8 synthetic envs "
      "({} us a step, sleeping), null policy, {} env steps per node\n",
      c.latency_us, c.steps_per_node);
  fmt::print("{:>5} {:>12} {:>10} {:>14} {:>9} {:>12}\n", "nodes", "env steps/s", "x 1 node",
             "per node /s", "lag", "segments MB");
  nlohmann::json out;
  double one = 0;
  ProgressMeter meter({"cluster:", "runs", c.node_counts.size()});
  uint64_t runs = 0;
  for (int nodes : c.node_counts) {
    auto f = run_cluster(nodes, c);
    if (!f) return Error(std::to_string(nodes) + " node(s): " + f.error().message());
    if (nodes == 1) one = f->steps_per_second;
    const double ratio = one > 0 ? f->steps_per_second / one : 0;
    meter.note(fmt::format("{:>5} {:>12.0f} {:>9.2f}x {:>14.0f} {:>9.2f} {:>12.1f}", nodes,
                           f->steps_per_second, ratio, f->steps_per_second / nodes,
                           f->policy_lag, f->segment_mb));
    meter.update(++runs);
    out["nodes"][std::to_string(nodes)] = {{"steps_per_second", f->steps_per_second},
                                           {"over_one_node", ratio},
                                           {"env_steps", f->env_steps},
                                           {"policy_lag_mean", f->policy_lag},
                                           {"segment_mb", f->segment_mb}};
  }
  meter.finish();
  fmt::print("\n");
  auto planes = bench_planes(*planes_options);
  if (!planes) return planes.error().within("control round trips under a flood");
  out["planes"] = *planes;
  return out;
}

}  // namespace dvla::apps
