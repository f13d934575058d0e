#pragma once
// dvla-bench's suites. Each measures in one run, prints a readable table on stdout, and returns
// its figures as one JSON object (printed last with --json).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla::apps {

struct BenchOptions {
  double seconds = 2.0;          // per measurement
  bool seconds_given = false;    // --seconds was given (soak: else an hour per workload)
  int episodes = 200;            // per family (expert suite)
  std::string workload = "all";  // pipeline: synthetic | cartpole | tabletop | all
  uint64_t steps = 0;            // pipeline, runtime: env steps per run; 0: the suite's default
  int64_t latency_us = 40;       // pipeline: the synthetic env's latency per env step
  int rounds = 1;                // pipeline: sync/async run pairs, alternating, splitting steps
  int seeds = 5;                 // efficiency: seed pairs (sync and async), from the config's seed
  std::vector<std::pair<std::string, std::string>> settings;  // pipeline, runtime: key, value
};

// Env steps/s of the tabletop suite per thread and aggregate, with and without rendering, per
// resolution and camera count; on one thread also as a fraction of bare MuJoCo (the same steps
// with mj_step and MuJoCo's renderer, no dvla code); memory per env.
Expected<nlohmann::json> bench_env(const BenchOptions& options);
// Success of the scripted expert, random actions and zero actions per task family.
Expected<nlohmann::json> bench_expert(const BenchOptions& options);
// The same workload in lock-step (sync) and through the Swimlane (async): steps/s of each, the
// speedup, the ideal speedup from the measured lane costs, lane busy fractions, policy lag.
Expected<nlohmann::json> bench_pipeline(const BenchOptions& options);
// Sample efficiency of async against sync: env steps and wall seconds to an evaluation target per
// seed in each mode, and the async/sync ratios.
Expected<nlohmann::json> bench_efficiency(const BenchOptions& options);
// The runtime's ceiling: zero-latency synthetic env, null policy, 1 to 64 samplers; env steps/s
// and the wall time per env step that is neither env nor policy.
Expected<nlohmann::json> bench_runtime(const BenchOptions& options);
// A throttled trainer: resident memory over the run must stay flat (credits hold samplers back).
Expected<nlohmann::json> bench_backpressure(const BenchOptions& options);
// Control round trips idle and under a data-plane flood between two processes, with the planes
// on separate actor systems and connections, on one connection, and in one mailbox.
Expected<nlohmann::json> bench_planes(const BenchOptions& options);
// A multi-node run on this machine: env steps/s of a coordinator with 1, 2 and 4 node processes
// (sleep-bound synthetic env) and the ratio to one node; control round trips under a segment flood
// across processes, planes split and shared.
Expected<nlohmann::json> bench_cluster(const BenchOptions& options);
// Weight versions to node processes on this machine: the learner's bytes per version and the time
// to the last replica, one copy per replica vs once per node vs a relay tree; local fan-out against
// one memcpy.
Expected<nlohmann::json> bench_replication(const BenchOptions& options);
namespace replication {
int run_worker(int argc, char** argv);  // a node process of the replication suite
}
// Long runs of CartPole and the synthetic env (an hour each unless --seconds): resident memory
// and open file descriptors sampled, their growth per hour after warm-up.
Expected<nlohmann::json> bench_soak(const BenchOptions& options);
// One allocation pattern (simulator churn, model weight updates) against a single shared pool and
// against the dual pools at the same budget: the model's large allocations that fail in each.
Expected<nlohmann::json> bench_memory(const BenchOptions& options);

}  // namespace dvla::apps
