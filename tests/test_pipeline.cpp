// The Swimlane pipeline against its lock-step baseline: traces have a track per lane and actor,
// sync mode really serialises sampling and training while async overlaps them, queues stay within
// their bounds under a slow trainer, and async reaches a CartPole target within a bound of sync's
// env steps.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>

using namespace dvla;
using nlohmann::json;

namespace {

struct Span {
  std::string name;
  int pid;
  double start, end;
};

struct Trace {
  std::map<int, std::string> lanes;              // pid -> process name
  std::set<std::pair<int, std::string>> tracks;  // (pid, thread name)
  std::vector<Span> spans;

  std::vector<Span> named(const std::set<std::string>& names) const {
    std::vector<Span> out;
    for (const auto& s : spans)
      if (names.count(s.name)) out.push_back(s);
    return out;
  }
};

Trace read_trace(const std::string& path) {
  std::ifstream in(path);
  const auto j = json::parse(in);  // throws (and fails the test) unless it is valid JSON
  Trace t;
  std::map<std::pair<int, int>, std::string> threads;
  for (const auto& e : j.at("traceEvents")) {
    const auto ph = e.at("ph").get<std::string>();
    if (ph == "M" && e.at("name") == "process_name")
      t.lanes[e.at("pid").get<int>()] = e.at("args").at("name").get<std::string>();
    if (ph == "M" && e.at("name") == "thread_name")
      t.tracks.insert({e.at("pid").get<int>(), e.at("args").at("name").get<std::string>()});
    if (ph == "X") {
      const double ts = e.at("ts").get<double>();
      t.spans.push_back({e.at("name").get<std::string>(), e.at("pid").get<int>(), ts,
                         ts + e.at("dur").get<double>()});
    }
  }
  return t;
}

// Spans of `a` that overlap some span of `b`.
size_t overlapping(std::vector<Span> a, std::vector<Span> b) {
  std::sort(b.begin(), b.end(), [](const Span& x, const Span& y) { return x.start < y.start; });
  size_t n = 0;
  for (const auto& s : a) {
    for (const auto& t : b) {
      if (t.start >= s.end) break;
      if (t.end > s.start) {
        ++n;
        break;
      }
    }
  }
  return n;
}

Config small_cartpole(RunMode mode) {
  Config c;
  c.run.mode = mode;
  c.run.seed = 11;
  c.run.max_env_steps = 20'000;
  return c;
}

Trace traced_run(Config config, const std::string& path, TrainingResult* out = nullptr) {
  config.run.trace = path;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_MESSAGE(result, result.error().message());
  if (out) *out = *result;
  return read_trace(path);
}

const std::set<std::string> training_spans = {"prepare_batch", "gradient_step"};

}  // namespace

TEST_CASE("the trace is valid JSON with a track per lane and actor, and spans of every lane") {
  TrainingResult result;
  const auto t = traced_run(small_cartpole(RunMode::async), "test_pipeline_async.json", &result);
  CHECK(t.lanes == std::map<int, std::string>{{1, "sampling lane"},
                                              {2, "inference lane"},
                                              {3, "training lane"},
                                              {4, "distribution lane"}});
  for (const auto& track : std::vector<std::pair<int, std::string>>{{1, "sampler/0"},
                                                                    {1, "sampler/1"},
                                                                    {2, "inference/0"},
                                                                    {3, "trainer"},
                                                                    {4, "distributor"},
                                                                    {4, "trainer"}})
    CHECK_MESSAGE(t.tracks.count(track), track.second, " has no track in lane ", track.first);
  for (const auto& [name, pid] : std::vector<std::pair<std::string, int>>{{"env_step", 1},
                                                                          {"wait_actions", 1},
                                                                          {"forward", 2},
                                                                          {"gradient_step", 3},
                                                                          {"publish_weights", 4},
                                                                          {"stage_weights", 4}}) {
    const auto spans = t.named({name});
    CHECK_MESSAGE(!spans.empty(), "no ", name, " span");
    for (const auto& s : spans) {
      CHECK(s.pid == pid);
      CHECK(s.end >= s.start);
    }
  }
  // The lanes' busy fractions are those of the spans.
  for (auto lane : all_lanes) {
    CHECK(result.lanes[lane].busy_fraction >= 0);
    CHECK(result.lanes[lane].busy_fraction <= 1.0);
  }
  CHECK(result.lanes[Lane::training].busy_s > 0);
  CHECK(result.lanes[Lane::sampling].actors == 2);
  // Async overlaps the lanes: samplers step while the trainer trains.
  CHECK(overlapping(t.named({"env_step"}), t.named(training_spans)) > 0);
}

TEST_CASE("sync mode serialises: no env step overlaps training, and nothing trains stale") {
  TrainingResult result;
  const Config c = small_cartpole(RunMode::sync);
  const auto t = traced_run(c, "test_pipeline_sync.json", &result);
  const auto steps = t.named({"env_step"});
  const auto training = t.named(training_spans);
  REQUIRE(steps.size() > 1000);
  REQUIRE(training.size() > 10);
  CHECK(overlapping(steps, training) == 0);
  const auto& s = result.status;
  // Every update trained on samples of the version it started from.
  REQUIRE(s.policy_lag_samples.size() == 1);
  CHECK(s.policy_lag_samples[0] == s.samples_trained);
  CHECK(s.policy_lag_mean == 0.0);
  // One update per round: a round of the default graph (samplers x envs x segment steps) is
  // one batch.
  const int64_t round =
      int64_t{c.graph.samplers} * c.graph.envs_per_sampler * c.graph.segment_length;
  REQUIRE(round == c.ppo.batch_size);
  CHECK(s.version == s.samples_trained / round);
}

TEST_CASE("with a slow trainer every queue stays within its bound") {
  Config c = small_cartpole(RunMode::async);
  c.run.max_env_steps = 30'000;
  c.ppo.epochs = 30;  // a trainer far slower than the samplers
  auto result = train(c, default_graph_parts(c));
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& q = result->lanes.queue_peaks;
  const int64_t in_flight = c.graph.segments_in_flight;
  for (const char* sampler : {"sampler/0", "sampler/1"}) {
    REQUIRE(q.count(sampler));
    CHECK(q.at(sampler) >= 1);
    CHECK(q.at(sampler) <= in_flight);  // unacknowledged segments
  }
  // A segment of a buffer holds its envs x segment_length steps. Beyond a complete
  // batch the trainer holds acknowledgements, so each sampler adds at most its credits, plus
  // what reached the mailbox before the update started.
  const int64_t samplers = c.graph.samplers;
  const int64_t per_segment = c.graph.envs_per_sampler / env_buffers(c) * c.graph.segment_length;
  const int64_t batch_segments = (c.ppo.batch_size + per_segment - 1) / per_segment;
  REQUIRE(q.count("trainer"));
  MESSAGE("trainer queue peak ", q.at("trainer"), " segments");
  CHECK(q.at("trainer") <= batch_segments + 2 * samplers * in_flight);
  // Each buffer has at most one request out.
  REQUIRE(q.count("inference/0"));
  CHECK(q.at("inference/0") <= samplers * env_buffers(c));
}

TEST_CASE("inference and training compute with the LibTorch threads set for their lane") {
  Config c = small_cartpole(RunMode::async);
  c.run.max_env_steps = 10'000;
  c.graph.torch_threads = 1;
  c.graph.inference_torch_threads = 2;
  c.graph.training_torch_threads = 3;
  auto result = train(c, default_graph_parts(c));
  REQUIRE_MESSAGE(result, result.error().message());
  // Read on each actor's thread while it computed, after the other lanes had set theirs.
  const auto& threads = result->lanes.intra_op_threads;
  REQUIRE(threads.count("inference/0"));
  REQUIRE(threads.count("trainer"));
  CHECK(threads.at("inference/0") == 2);
  CHECK(threads.at("trainer") == 3);
  CHECK_FALSE(threads.count("sampler/0"));  // samplers run no LibTorch
}

namespace {

// Env steps until an evaluation (of every version, 10 episodes) first reaches a mean return of
// 400 on CartPole from `seed`, as dvla-bench efficiency measures them; the budget when none does.
uint64_t steps_to_400(RunMode mode, uint64_t seed) {
  Config c;
  c.run.mode = mode;
  c.run.seed = seed;
  c.run.max_env_steps = 300'000;
  c.run.eval_every = 1;
  c.run.eval_episodes = 10;
  c.run.eval_backlog = 100'000;
  c.run.stop_eval_return = 400;
  auto result = train(c, default_graph_parts(c));
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& first = result->status.first_at_target;
  return first.episodes > 0 ? first.env_steps : c.run.max_env_steps;
}

double median(std::vector<uint64_t> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2.0;
}

}  // namespace

TEST_CASE("async reaches CartPole's return 400 within 2x sync's env steps (24-seed medians)") {
  // Async trains each batch about one version late; on CartPole, whose return grows about twofold
  // per update, that costs env steps. With the defaults (updates of 512, segments of 32, the
  // learner's critic values) async needs 1.1-1.2x sync's (medians of 100 seeds, docs/results.md).
  // Sync runs are reproducible (its median here is the same every time: 6,912); async's are not
  // (the lanes' timing decides which version acts), so many seeds, and the bound comes from
  // resampling: the ratio of a 24-seed async median to sync's exceeded 1.5 in 4 of 200,000 draws
  // from these seeds' async results in two bench runs, 2 in none (at most 1.93); it was 2.5 while
  // sync varied too, 2.75 with updates of 1,024.
  std::vector<uint64_t> sync, async;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    sync.push_back(steps_to_400(RunMode::sync, seed));
    async.push_back(steps_to_400(RunMode::async, seed));
  }
  const double ratio = median(async) / median(sync);
  MESSAGE("env steps to 400, median of 24 seeds: sync ", median(sync), ", async ", median(async),
          ", ratio ", ratio);
  CHECK(median(sync) < 300'000);
  CHECK(median(async) < 300'000);
  CHECK(ratio <= 2.0);
}

TEST_CASE("the null policy runs the graph with nothing but the runtime's own work") {
  Config c;
  c.env.name = "synthetic";
  c.model.policy = PolicyKind::null;
  c.run.max_env_steps = 50'000;
  c.graph.envs_per_sampler = 64;
  auto result = train(c, default_graph_parts(c));
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->status.env_steps >= c.run.max_env_steps);
  CHECK(result->status.rejected_messages == 0);
  CHECK(result->lanes.work_s.count("env_step"));
  CHECK(result->lanes.work_s.count("forward"));
}
