#include <fmt/core.h>

#include <random>

#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/envs/tabletop/tabletop_env.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include "dvla-bench/bench.hpp"

namespace dvla::apps {
namespace {

using namespace envs::tabletop;

struct Outcome {
  int successes = 0;
  double length_sum = 0;  // of successful episodes
  int longest = 0;
};

template <class Policy>
void run_episode(TabletopEnv& env, const InitialState& start, Policy&& policy, Outcome& out) {
  env.reset(start);
  for (;;) {
    const auto action = policy(env.state());
    const auto r = env.step(action.data());
    if (r.success) {
      ++out.successes;
      out.length_sum += env.steps();
      out.longest = std::max(out.longest, env.steps());
      return;
    }
    if (r.truncated) return;
  }
}

}  // namespace

Expected<nlohmann::json> bench_expert(const BenchOptions& options) {
  auto scene = Scene::load();
  TabletopEnv env(scene);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  const int n = options.episodes;
  fmt::print(
      "dvla-bench expert: {} episodes per family from training states (seeds "
      "1000003 * family + episode), fast physics\n\n",
      n);
  fmt::print("{:<11} {:>9} {:>18} {:>9} {:>9}\n", "family", "scripted", "mean/max length", "random",
             "zero");
  nlohmann::json result;
  const char* families[] = {"lift", "push", "place_bowl", "stack"};
  ProgressMeter meter({"expert:", "episodes", 4 * static_cast<uint64_t>(n)});
  for (uint64_t f = 0; f < 4; ++f) {
    const char* family = families[f];
    const auto s = suite(family).value();
    Outcome expert, random, zero;
    for (int e = 0; e < n; ++e) {
      const auto start = training_state(s, 1000003ULL * f + static_cast<uint64_t>(e));
      ScriptedExpert x(start.task);
      run_episode(
          env, start, [&](const TabletopState& st) { return x.act(st); }, expert);
      run_episode(
          env, start,
          [&](const TabletopState&) {
            std::array<float, action_size> a;
            for (auto& v : a) v = uniform(rng);
            return a;
          },
          random);
      run_episode(
          env, start, [](const TabletopState&) { return std::array<float, action_size>{}; }, zero);
      meter.update(f * static_cast<uint64_t>(n) + static_cast<uint64_t>(e) + 1, family);
    }
    const double rate = static_cast<double>(expert.successes) / n;
    meter.note(fmt::format("{:<11} {:>8.1f}% {:>12.1f} / {:>3} {:>8.1f}% {:>8.1f}%", family,
                           100 * rate,
                           expert.successes ? expert.length_sum / expert.successes : 0.0,
                           expert.longest, 100.0 * random.successes / n,
                           100.0 * zero.successes / n));
    result[std::string("scripted_success_") + family] = rate;
    result[std::string("random_success_") + family] = static_cast<double>(random.successes) / n;
    result[std::string("zero_success_") + family] = static_cast<double>(zero.successes) / n;
    result[std::string("scripted_max_length_") + family] = expert.longest;
  }
  result["episodes_per_family"] = n;
  return result;
}

}  // namespace dvla::apps
