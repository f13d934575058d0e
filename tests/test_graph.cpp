// The whole actor graph: it learns CartPole on a CI-sized budget, runs user-composed parts,
// checkpoints, evaluates and resumes, and a failing actor ends the run with an error naming it
// instead of a hang.
#include "doctest_with_torch.hpp"

#include <torch/cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <thread>

#include <dvla/actors/graph/training.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>
#include "best_evaluation.hpp"

using namespace dvla;

TEST_CASE("the actor graph learns CartPole to a mean return of at least 195") {
  Config config;
  config.run.seed = 7;
  config.run.max_env_steps = 80'000;
  config.run.eval_every = 5;
  int progress_reports = 0;
  config.run.progress_interval_s = 0.5;
  const auto parts = default_graph_parts(config);
  auto graph = graph_of(config, parts);
  auto best = std::make_shared<std::atomic<double>>(0.0);
  observe_best_evaluation(graph, best);
  auto result = train(config, graph, [&](const RunStatus&) { ++progress_reports; });
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.env_steps >= config.run.max_env_steps);
  CHECK(s.env_steps < config.run.max_env_steps + 16);  // budgets round up to whole batched steps
  CHECK(result->stopped_by.empty());                   // the budget ended it
  CHECK(s.version > 10);
  CHECK(s.samples_trained > 0);
  CHECK(s.rejected_messages == 0);
  CHECK(progress_reports > 0);
  CHECK(s.evaluations >= 5);
  auto eval = evaluate_weights(parts, config, result->weights);
  REQUIRE(eval);
  MESSAGE("final evaluation ", eval->mean_return, ", best during the run ", best->load(),
          " after ", s.env_steps, " env steps, version ", s.version, ", lag ", s.policy_lag_mean);
  CHECK(eval->episodes == 20);
  // Learned: the best of the run's evaluations and of its final weights. PPO's CartPole curve
  // can dip late: final weights were measured at 173 in a run that had reached 500 before.
  CHECK(std::max(eval->mean_return, best->load()) >= 195.0);
}

TEST_CASE("a user-composed graph: custom env factory, more replicas and samplers") {
  Config config;
  config.env.name = "synthetic";
  config.run.max_env_steps = 6'000;
  config.graph.samplers = 3;
  config.graph.envs_per_sampler = 4;
  config.graph.inference_replicas = 2;
  config.graph.segment_length = 16;
  config.ppo.batch_size = 256;
  auto parts = default_graph_parts(config);
  std::atomic<int> built{0};
  const auto base = parts.make_env;
  parts.make_env = [&built, base](uint32_t sampler, size_t envs) {
    ++built;
    return base(sampler, envs);
  };
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(built == 3 * env_buffers(config));  // one env batch per buffer of each sampler
  CHECK(result->status.env_steps >= 6'000);
  CHECK(result->status.version >= 5);
}

TEST_CASE("a sync run is reproducible: one seed, the same weights, however requests interleave") {
  // Two samplers share one inference replica, and their requests arrive in whatever order the
  // threads make: in sync mode each request gets a forward pass of its own, drawn from its
  // sampler's stream, and the trainer takes segments in sampler order, so timing decides nothing.
  Config config;
  config.run.mode = RunMode::sync;
  config.run.seed = 3;
  config.run.max_env_steps = 6'000;
  config.run.eval_every = 0;
  config.graph.samplers = 2;
  const auto parts = default_graph_parts(config);
  auto first = train(config, parts);
  REQUIRE_MESSAGE(first, first.error().message());
  REQUIRE(first->status.version >= 10);
  for (int run = 0; run < 3; ++run) {
    auto again = train(config, parts);
    REQUIRE_MESSAGE(again, again.error().message());
    CHECK(again->status.version == first->status.version);
    REQUIRE(again->weights.size() == first->weights.size());
    CHECK(std::equal(again->weights.data(), again->weights.data() + again->weights.size(),
                     first->weights.data()));
  }
  // Another seed, other weights (the comparison above can tell runs apart).
  config.run.seed = 4;
  auto other = train(config, parts);
  REQUIRE_MESSAGE(other, other.error().message());
  REQUIRE(other->weights.size() == first->weights.size());
  CHECK_FALSE(std::equal(other->weights.data(), other->weights.data() + other->weights.size(),
                         first->weights.data()));
}

TEST_CASE("an actor that fails ends the run with an error naming it") {
  Config config;
  config.run.max_env_steps = 1'000'000;
  config.fault.max_restarts = 0;  // test_restarts has the restarts
  auto parts = default_graph_parts(config);
  parts.make_env = [](uint32_t sampler, size_t) -> std::unique_ptr<envs::BatchedEnv> {
    if (sampler == 1) throw std::runtime_error("simulator license expired");
    envs::EnvConfig c;
    return envs::make_batched_env(c, 8);
  };
  auto result = train(config, parts);
  REQUIRE_FALSE(result);
  CHECK(result.error().message() ==
        "actor_failed: sampler/1: simulator license expired (no restarts: fault.max_restarts = 0)");
}

TEST_CASE("a hung env is named by the watchdog, and the run stops without waiting for it") {
  Config config;
  config.run.max_env_steps = 1'000'000;
  config.run.message_timeout_s = 1;
  config.graph.samplers = 1;
  auto parts = default_graph_parts(config);
  const auto base = parts.make_env;
  // Sampler 0's envs step normally for a while, then hang in one step until the test lets them
  // go (after train() returned: it must not wait for them).
  auto released = std::make_shared<std::atomic<bool>>(false);
  struct Hanging final : envs::BatchedEnv {
    std::unique_ptr<envs::BatchedEnv> env;
    std::shared_ptr<std::atomic<bool>> released;
    int steps = 0;
    const envs::EnvSpec& spec() const override { return env->spec(); }
    size_t size() const override { return env->size(); }
    void reset(const std::vector<uint64_t>& seeds) override { env->reset(seeds); }
    void step(const float* actions) override {
      if (++steps == 200)
        while (!*released) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      env->step(actions);
    }
    const envs::BatchOutput& output() const override { return env->output(); }
  };
  parts.make_env = [base, released](uint32_t sampler,
                                    size_t envs) -> std::unique_ptr<envs::BatchedEnv> {
    auto hanging = std::make_unique<Hanging>();
    hanging->env = base(sampler, envs);
    hanging->released = released;
    return hanging;
  };
  auto result = train(config, parts);
  const bool still_hung = !*released;
  *released = true;  // the left-behind thread may end now
  CHECK(still_hung);
  REQUIRE_FALSE(result);
  const auto& message = result.error().message();
  MESSAGE(message);
  CHECK(message.find("the run made no progress for") != std::string::npos);
  CHECK(message.find("sampler/0 (sampling lane) in env_step for") != std::string::npos);
}

TEST_CASE("weights beyond the model pool's budget end the run with an error naming the pool") {
  Config config;
  config.run.max_env_steps = 10'000;
  config.model.hidden = {1024, 1024};  // about 4 MiB of parameters
  config.memory.model_mib = 1;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_FALSE(result);
  MESSAGE(result.error().message());
  CHECK(result.error().message().find("inference/0: pool 'model' cannot allocate") !=
        std::string::npos);
  CHECK(result.error().message().find("budget 1.0 MiB") != std::string::npos);
}

TEST_CASE("a run's actors draw from the sim and model pools, which the status reports") {
  Config config;
  config.run.max_env_steps = 20'000;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& pools = result->status.memory;
  REQUIRE(pools.size() == 2);
  CHECK(pools[0].name == "sim");
  CHECK(pools[1].name == "model");
  // Segment buffers of 2 samplers x 2 buffers; flat weights of the trainer and 2 per replica.
  CHECK(pools[0].peak_in_use > 0);
  CHECK(pools[1].peak_in_use >= 3 * 4 * (4 * 64 + 64 + 64 * 64 + 64 + 64 * 2 + 2 + 64 + 1));
  CHECK(pools[0].budget == 2048u << 20);
  CHECK(pools[0].failed_requests == 0);
  CHECK(pools[1].failed_requests == 0);
}

TEST_CASE("model.device=cuda trains on the GPU where LibTorch has one, and is refused elsewhere") {
  Config config;
  config.model.device = Device::cuda;
  config.run.max_env_steps = 20'000;
  auto result = train(config, default_graph_parts(config));
  if (!torch::cuda::is_available()) {
    REQUIRE_FALSE(result);
    CHECK(result.error().message().find("model.device=cuda: this LibTorch sees no CUDA device") ==
          0);
    return;
  }
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->status.env_steps >= 20'000);
  CHECK(result->status.version > 0);
  auto eval = evaluate_weights(default_graph_parts(config), config, result->weights);
  REQUIRE_MESSAGE(eval, eval.error().message());
  MESSAGE("CartPole on the GPU: eval mean return ", eval->mean_return, " after 20k env steps");
}

TEST_CASE("a bad config is refused before anything starts") {
  Config config;
  config.graph.samplers = 0;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_FALSE(result);
  CHECK(result.error().message() == "invalid config: samplers must be 1..1024, not 0");
}

TEST_CASE("a run checkpoints and evaluates as it goes; resume continues version and counters") {
  const std::string logdir = "test_graph_resume";
  std::filesystem::remove_all(logdir);
  Config config;
  config.run.seed = 3;
  config.run.max_env_steps = 12'000;
  config.run.logdir = logdir;
  config.run.checkpoint_every = 2;
  config.run.checkpoint_keep = 2;
  config.run.eval_every = 3;
  config.run.eval_episodes = 4;
  config.ppo.learning_rate_schedule = "4:5e-4";
  const auto parts = default_graph_parts(config);
  auto first = train(config, parts);
  REQUIRE_MESSAGE(first, first.error().message());
  const auto& s1 = first->status;
  CHECK(s1.evaluations >= 1);
  CHECK(s1.last_evaluation.episodes == 4);
  CHECK(s1.last_evaluation.version >= 3);
  CHECK(s1.last_evaluation.version <= s1.version);
  CHECK(s1.last_evaluation.env_steps > 0);
  CHECK(s1.last_evaluation.env_steps <= s1.env_steps);
  REQUIRE_FALSE(first->checkpoint.empty());
  CHECK(s1.last_checkpoint == first->checkpoint);
  CHECK(CheckpointStore::latest(logdir).value() == first->checkpoint);
  auto saved = load_checkpoint(first->checkpoint);
  REQUIRE_MESSAGE(saved, saved.error().message());
  // The last update reported started at version 4 or later (the status may trail it by one).
  REQUIRE(s1.version >= 6);
  CHECK(s1.learner.learning_rate == doctest::Approx(5e-4));
  CHECK(saved->state.version == s1.version);
  CHECK(saved->state.env_steps == s1.env_steps);
  CHECK(saved->state.samples_trained == s1.samples_trained);
  CHECK(saved->state.episodes == s1.episodes);
  CHECK_FALSE(saved->optimizer_path.empty());
  CHECK(saved->weights.size() == first->weights.size());
  CHECK(std::equal(saved->weights.data(), saved->weights.data() + saved->weights.size(),
                   first->weights.data()));

  config.run.max_env_steps = 24'000;
  // The schedule follows the version counter, which the resumed run continues.
  config.ppo.learning_rate_schedule = "4:5e-4," + std::to_string(s1.version + 1) + ":2e-4";
  auto second = train(config, parts, {}, std::make_shared<const Checkpoint>(*saved));
  REQUIRE_MESSAGE(second, second.error().message());
  const auto& s2 = second->status;
  CHECK(s2.version > s1.version + 3);  // went on from the checkpoint's version
  CHECK(s2.env_steps >= 24'000);
  CHECK(s2.env_steps < 24'000 + 16);  // only the missing steps were collected
  CHECK(s2.samples_trained > s1.samples_trained);
  CHECK(s2.learner.learning_rate == doctest::Approx(2e-4));
  CHECK(s2.episodes > s1.episodes);
  CHECK(CheckpointStore::latest(logdir).value() == second->checkpoint);
  CHECK(load_checkpoint(second->checkpoint).value().state.version == s2.version);
}

TEST_CASE("checkpoint saves that fail are reported and the run goes on; no weights are lost") {
  const std::string logdir = "test_graph_failing_saves";
  std::filesystem::remove_all(logdir);
  // `latest` cannot be written: a directory (not empty) stands where the file goes. Every save
  // writes its checkpoint and then fails naming it.
  std::filesystem::create_directories(logdir + "/checkpoints/latest/in-the-way");
  Config config;
  config.run.seed = 3;
  config.run.max_env_steps = 8'000;
  config.run.logdir = logdir;
  config.run.checkpoint_every = 2;
  config.run.eval_episodes = 0;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.env_steps >= 8'000);   // the run went on to its budget
  CHECK(s.checkpoint_failures >= 2);  // periodic ones and the final one
  CHECK_MESSAGE(s.checkpoint_error.find("latest") != std::string::npos, s.checkpoint_error);
  CHECK(result->checkpoint.empty());  // the final save failed too ...
  auto final_weights = msg::read(result->weights);  // ... but its weights came back
  REQUIRE(final_weights);
  CHECK(final_weights->version > 0);  // trained weights, not the initial ones
  std::filesystem::remove_all(logdir);
}

TEST_CASE("the learning-rate schedule counts versions or samples trained, as configured") {
  // After a few updates of ~500 samples each, point 100 is behind the samples trained but ahead
  // of the version.
  auto last_rate = [](ScheduleUnit unit) {
    Config config;
    config.run.seed = 5;
    config.run.max_env_steps = 4'000;
    config.ppo.batch_size = 512;
    config.ppo.learning_rate_schedule = "100:5e-4";
    config.ppo.learning_rate_schedule_unit = unit;
    auto result = train(config, default_graph_parts(config));
    REQUIRE_MESSAGE(result, result.error().message());
    REQUIRE(result->status.version >= 2);
    REQUIRE(result->status.version < 100);
    return result->status.learner.learning_rate;
  };
  CHECK(last_rate(ScheduleUnit::versions) == doctest::Approx(1e-3));
  CHECK(last_rate(ScheduleUnit::samples) == doctest::Approx(5e-4));
}

TEST_CASE("a stop request ends the run as its budget would: final checkpoint and reason") {
  const std::string logdir = "test_graph_stop";
  std::filesystem::remove_all(logdir);
  Config config;
  config.run.max_env_steps = 1'000'000'000;  // only the stop can end it
  config.run.logdir = logdir;
  config.run.progress_interval_s = 0.05;
  RunRequests requests;
  auto result = train(
      config, default_graph_parts(config),
      [&requests](const RunStatus& s) {
        if (s.version >= 3) requests.request_stop();
      },
      nullptr, &requests);
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->stopped_by == "stop request");
  CHECK(result->status.version >= 3);
  CHECK(result->status.env_steps < config.run.max_env_steps);
  CHECK(result->status.failure.empty());
  REQUIRE_FALSE(result->checkpoint.empty());
  auto saved = load_checkpoint(result->checkpoint);
  REQUIRE_MESSAGE(saved, saved.error().message());
  CHECK(saved->state.version == result->status.version);
  CHECK(CheckpointStore::latest(logdir).value() == result->checkpoint);
}

TEST_CASE("an evaluation asked for during the run evaluates the latest weights") {
  Config config;
  config.run.max_env_steps = 1'000'000'000;  // only the stop can end it
  config.run.progress_interval_s = 0.05;
  config.run.eval_every = 0;  // no periodic evaluations: only the one asked for
  config.run.eval_episodes = 2;
  RunRequests requests;
  uint64_t asked_at_version = 0;
  auto result = train(
      config, default_graph_parts(config),
      [&](const RunStatus& s) {
        if (s.version >= 2 && asked_at_version == 0) {
          asked_at_version = s.version;
          requests.request_evaluation();
        }
        // A minute at most: an evaluation that never comes fails the checks, not the clock.
        if (s.evaluations > 0 || s.wall_seconds > 60) requests.request_stop();
      },
      nullptr, &requests);
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->stopped_by == "stop request");
  CHECK(result->status.evaluations == 1);
  CHECK(result->status.last_evaluation.episodes == 2);
  CHECK(result->status.last_evaluation.version >= asked_at_version);
  CHECK(result->status.last_evaluation.env_steps > 0);
}

TEST_CASE("max_seconds ends the run after that much wall clock, with its reason") {
  Config config;
  config.run.max_env_steps = 1'000'000'000;
  config.run.max_seconds = 1.5;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->stopped_by == "max_seconds");
  CHECK(result->status.wall_seconds >= 1.5);
  CHECK(result->status.env_steps < config.run.max_env_steps);
  CHECK(result->status.version >= 1);
  CHECK(result->weights.size() > 0);
}

TEST_CASE("stop.eval_return ends the run at the first evaluation that reaches it") {
  Config config;
  config.run.max_env_steps = 1'000'000'000;
  config.run.eval_every = 2;
  config.run.eval_episodes = 2;
  config.run.stop_eval_return = 150;
  config.run.progress_interval_s = 0.01;   // every poll: each evaluation is seen
  std::map<uint64_t, double> evaluations;  // version -> mean return
  const auto seen = [&](const RunStatus& s) {
    if (s.last_evaluation.episodes > 0)
      evaluations[s.last_evaluation.version] = s.last_evaluation.mean_return;
  };
  auto result = train(config, default_graph_parts(config), seen);
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->stopped_by == "stop.eval_return");
  const auto& s = result->status;
  const auto& first = s.first_at_target;
  CHECK(first.mean_return >= 150);
  CHECK(first.episodes == 2);
  CHECK(first.version <= s.last_evaluation.version);
  CHECK(first.env_steps > 0);
  CHECK(first.env_steps <= s.env_steps);
  CHECK(first.wall_seconds > 0);
  CHECK(first.wall_seconds <= s.wall_seconds);
  CHECK(s.env_steps < 1'000'000);  // CartPole gets there in a few ten thousand
  for (const auto& [version, mean_return] : evaluations)
    if (version < first.version) CHECK(mean_return < 150);  // none before it did
}

// The versions of a run's evaluations, in the order their reports arrive.
void observe_evaluated_versions(Graph& graph, std::shared_ptr<std::vector<uint64_t>> versions) {
  using observer = actors::observer_actor;
  add_observer(graph, "evaluated versions", [versions](caf::actor_system& system) {
    return system.spawn([versions](observer::pointer) -> observer::behavior_type {
      return {[](const msg::VersionFrame&) {},
              [versions](const msg::MetricsFrame& frame) {
                auto m = msg::read(frame);
                const auto* e = m ? std::get_if<msg::EvaluationReport>(&m->report) : nullptr;
                if (e) versions->push_back(e->version);
              }};
    });
  });
}

TEST_CASE("eval.backlog: versions due while evaluations run wait their turn, in order") {
  Config config;
  config.run.mode = RunMode::sync;
  config.ppo.batch_size = 1024;
  config.run.max_env_steps = 6 * 1024;  // 6 versions (batches of 1024)
  config.run.eval_every = 1;
  // Each evaluation takes several times an update: without a backlog most versions are skipped.
  config.run.eval_episodes = 200;
  config.run.eval_backlog = 100;
  const auto parts = default_graph_parts(config);
  auto graph = graph_of(config, parts);
  auto versions = std::make_shared<std::vector<uint64_t>>();
  observe_evaluated_versions(graph, versions);
  auto result = train(config, graph);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  MESSAGE(versions->size(), " evaluations of ", s.version, " versions");
  // Versions 1 to 5 were published before the samplers finished; the run waited for each one's
  // evaluation, in order (the weights taken when a version fell due are the trainer's latest).
  CHECK(s.evaluations == versions->size());
  CHECK(versions->size() >= 5);
  CHECK(std::is_sorted(versions->begin(), versions->end()));
  CHECK(versions->front() >= 1);
  CHECK(versions->back() <= s.version);
  CHECK(s.last_evaluation.version == versions->back());
}

TEST_CASE("eval.deferred: versions due are evaluated once training has ended; targets then") {
  // A target the first evaluation reaches (a random policy's CartPole return is about 22).
  auto run = [](bool deferred) {
    Config config;
    config.run.mode = RunMode::sync;
    config.run.max_env_steps = 40 * 512;  // about half a second
    config.run.eval_every = 1;
    config.run.eval_episodes = 5;
    config.run.eval_backlog = 100;
    config.run.eval_deferred = deferred;
    config.run.stop_eval_return = 1;
    auto versions = std::make_shared<std::vector<uint64_t>>();
    auto graph = graph_of(config, default_graph_parts(config));
    observe_evaluated_versions(graph, versions);
    auto result = train(config, graph);
    REQUIRE_MESSAGE(result, result.error().message());
    return std::make_pair(result->status, *versions);
  };
  const auto [beside, beside_versions] = run(false);
  CHECK(beside.env_steps < 40 * 512);  // the target stopped training
  const auto [after, after_versions] = run(true);
  CHECK(after.env_steps >= 40 * 512);  // training ran its budget first
  REQUIRE_FALSE(after_versions.empty());
  // The first version due was evaluated first, with the env steps of when it was due.
  CHECK(after.first_at_target.version == after_versions.front());
  CHECK(after.first_at_target.version <= 2);
  CHECK(after.first_at_target.env_steps <= 2 * 512);
  CHECK(after.first_at_target.wall_seconds < after.wall_seconds);
}

TEST_CASE("resuming from a checkpoint of another policy is refused by name") {
  Config config;
  config.run.max_env_steps = 2'000;
  auto checkpoint = std::make_shared<Checkpoint>();
  Config other = config;
  other.model.hidden = {8};
  auto policy = default_graph_parts(other).make_policy(envs::spec_of(other.env));
  checkpoint->weights = FlatParameters(*policy).to_frame(5);
  checkpoint->state.version = 5;
  auto result = train(config, default_graph_parts(config), {}, checkpoint);
  REQUIRE_FALSE(result);
  CHECK(result.error().message().find("weight update does not fit this policy") !=
        std::string::npos);
}

TEST_CASE("GRPO through the graph: episodic groups learn CartPole from the return") {
  Config config;
  config.run.seed = 5;
  config.run.algo = "grpo";
  config.grpo.reward = EpisodeScore::episode_return;
  config.run.max_env_steps = 60'000;
  const auto parts = default_graph_parts(config);
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& s = result->status;
  CHECK(s.env_steps >= config.run.max_env_steps);  // valid steps only: whole rounds overshoot
  CHECK(s.version >= 5);
  CHECK(s.rejected_messages == 0);
  auto eval = evaluate_weights(parts, config, result->weights);
  REQUIRE(eval);
  MESSAGE("grpo eval mean return ", eval->mean_return, " after ", s.env_steps, " env steps");
  CHECK(eval->mean_return >= 150.0);  // a random policy averages about 22
}

namespace {

// An env that says its own threads spent 2 ms of CPU on each step and reset (as a batch with
// worker threads does; this one steps on the caller's thread).
class ReportingWorkerCpu final : public envs::BatchedEnv {
 public:
  explicit ReportingWorkerCpu(std::unique_ptr<envs::BatchedEnv> inner, std::atomic<int>& calls)
      : inner_(std::move(inner)), calls_(calls) {}
  const envs::EnvSpec& spec() const override { return inner_->spec(); }
  size_t size() const override { return inner_->size(); }
  void reset(const std::vector<uint64_t>& seeds) override {
    inner_->reset(seeds);
    reported_ += per_call_ns;
    ++calls_;
  }
  void step(const float* actions) override {
    inner_->step(actions);
    reported_ += per_call_ns;
    ++calls_;
  }
  const envs::BatchOutput& output() const override { return inner_->output(); }
  int64_t worker_cpu_ns() const override { return reported_; }
  static constexpr int64_t per_call_ns = 2'000'000;

 private:
  std::unique_ptr<envs::BatchedEnv> inner_;
  std::atomic<int>& calls_;
  int64_t reported_ = 7'000'000'000;  // since it was made: only differences count
};

// Counts how a wrapped env is reset: from training seeds or from evaluation starts.
struct ResetLog {
  std::atomic<int> training{0}, evaluation{0};
};

class LoggedEnv final : public envs::BatchedEnv {
 public:
  LoggedEnv(std::unique_ptr<envs::BatchedEnv> inner, ResetLog& log)
      : inner_(std::move(inner)), log_(log) {}
  const envs::EnvSpec& spec() const override { return inner_->spec(); }
  size_t size() const override { return inner_->size(); }
  void reset(const std::vector<uint64_t>& seeds) override {
    ++log_.training;
    inner_->reset(seeds);
  }
  void reset_for_evaluation(uint64_t seed) override {
    ++log_.evaluation;
    inner_->reset_for_evaluation(seed);
  }
  void step(const float* actions) override { inner_->step(actions); }
  const envs::BatchOutput& output() const override { return inner_->output(); }

 private:
  std::unique_ptr<envs::BatchedEnv> inner_;
  ResetLog& log_;
};

}  // namespace

TEST_CASE("evaluation during a run uses only evaluation starts, and samplers never do") {
  Config config;
  config.run.max_env_steps = 20'000;
  config.run.eval_every = 2;
  config.run.eval_episodes = 3;
  auto parts = default_graph_parts(config);
  ResetLog samplers, evaluator;
  const auto base = parts.make_env;
  const auto evaluator_index = static_cast<uint32_t>(config.graph.samplers);
  parts.make_env = [&, base](uint32_t index, size_t envs) -> std::unique_ptr<envs::BatchedEnv> {
    auto& log = index == evaluator_index ? evaluator : samplers;
    return std::make_unique<LoggedEnv>(base(index, envs), log);
  };
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  CHECK(result->status.evaluations >= 1);
  // One more may have been under way when the run ended.
  const int evaluations = static_cast<int>(result->status.evaluations);
  CHECK(evaluator.evaluation.load() >= evaluations);
  CHECK(evaluator.evaluation.load() <= evaluations + 1);
  CHECK(evaluator.training.load() == 0);
  CHECK(samplers.training.load() == config.graph.samplers * env_buffers(config));
  CHECK(samplers.evaluation.load() == 0);
}

TEST_CASE("eval.actions: mean actions give one fixed figure, sampled ones follow the seed") {
  Config config;
  config.run.eval_episodes = 16;
  const auto parts = default_graph_parts(config);
  auto env = parts.make_env(0, 1);
  auto policy = parts.make_policy(env->spec());
  const auto weights = FlatParameters(*policy).to_frame(0);
  auto returns = [&](EvalActions actions, uint64_t seed) {
    Config c = config;
    c.run.eval_actions = actions;
    c.run.seed = seed;
    auto e = evaluate_weights(parts, c, weights);
    REQUIRE_MESSAGE(e, e.error().message());
    return e->returns;
  };
  const auto mean = returns(EvalActions::mean, 1);
  const auto sampled = returns(EvalActions::sampled, 1);
  CHECK(returns(EvalActions::mean, 1) == mean);
  CHECK(returns(EvalActions::sampled, 1) == sampled);  // reproducible from the seed
  CHECK(sampled != mean);  // the same starts, other actions
}

TEST_CASE("CPU time an env spends on its own threads counts as the sampling lane's") {
  Config config;
  config.run.max_env_steps = 8'000;
  config.graph.samplers = 2;
  auto parts = default_graph_parts(config);
  std::atomic<int> calls{0};
  const auto base = parts.make_env;
  const auto evaluator_index = static_cast<uint32_t>(config.graph.samplers);
  parts.make_env = [&, base](uint32_t index, size_t envs) -> std::unique_ptr<envs::BatchedEnv> {
    if (index == evaluator_index) return base(index, envs);
    return std::make_unique<ReportingWorkerCpu>(base(index, envs), calls);
  };
  auto result = train(config, parts);
  REQUIRE_MESSAGE(result, result.error().message());
  const double reported_s = 1e-9 * ReportingWorkerCpu::per_call_ns * calls.load();
  const auto& sampling = result->lanes[Lane::sampling];
  MESSAGE(calls.load(), " resets and steps reported ", reported_s, " s; the sampling lane's CPU ",
          sampling.cpu_s, " s");
  REQUIRE(calls.load() >= 8'000 / config.graph.envs_per_sampler);
  // The samplers' own threads add their CPU time to what the env reported, never less.
  CHECK(sampling.cpu_s >= reported_s);
  CHECK(sampling.cpu_s < reported_s + result->lanes.wall_s * config.graph.samplers);
}
