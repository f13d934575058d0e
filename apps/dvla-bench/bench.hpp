#pragma once
// dvla-bench's suites. Each measures in one run, prints a readable table on stdout, and returns
// its figures as one JSON object (printed last with --json).
#include <nlohmann/json.hpp>

#include "runtime/expected.hpp"

namespace dvla::apps {

struct BenchOptions {
  double seconds = 2.0;  // per measurement
  int episodes = 200;    // per family (expert suite)
};

// Env steps/s of the tabletop suite per thread and aggregate, with and without rendering, per
// resolution and camera count; memory per env.
Expected<nlohmann::json> bench_env(const BenchOptions& options);
// Success of the scripted expert, random actions and zero actions per task family.
Expected<nlohmann::json> bench_expert(const BenchOptions& options);

}  // namespace dvla::apps
