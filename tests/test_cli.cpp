// dvla-ppo as a user meets it: wrong flags fail with a message; --json ends with the summary.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <utility>
#include <sstream>
#include <string>
#include <vector>

#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/tensorboard/event_file.hpp>
#include <dvla/runtime/video/gif_file.hpp>

#include "run_command.hpp"

namespace {

using Outcome = dvla::test::CommandOutcome;

// The longest run here trains CartPole for a few seconds; 5 minutes is far beyond any.
Outcome run_program(const std::string& program, const std::string& args) {
  return dvla::test::run_command(program + " " + args, std::chrono::seconds(300));
}

Outcome run(const std::string& args) { return run_program(DVLA_PPO, args); }

// `program args` exits with `status` and its output says `message`.
void check_refused(const std::string& program, const std::string& args, int status,
                   const std::string& message) {
  const auto o = run_program(program, args);
  INFO(o.output);
  CHECK(o.status == status);
  CHECK(o.output.find(message) != std::string::npos);
}

std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of('\n');
  auto begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - begin);
}

}  // namespace

TEST_CASE("wrong flags and values say what is wrong and exit non-zero") {
  auto unknown = run("--sampler 3");
  CHECK(unknown.status == 2);
  CHECK(unknown.output.find("not expected: 3 --sampler") != std::string::npos);
  auto value = run("--samplers many");
  CHECK(value.status == 2);
  CHECK(value.output.find("config key 'samplers': 'many' is not an integer") != std::string::npos);
  auto missing = run("--seed");
  CHECK(missing.status == 2);
  CHECK(missing.output.find("--seed: 1 required S missing") != std::string::npos);
  auto set = run("--set seed");
  CHECK(set.status == 2);
  CHECK(set.output.find("--set: needs KEY=VALUE, got 'seed'") != std::string::npos);
  auto config = run("--config /no/such.conf");
  CHECK(config.status == 2);
  CHECK(config.output.find("cannot read config file '/no/such.conf'") != std::string::npos);
  auto resume = run("--resume no/such/run");
  CHECK(resume.status == 2);
  CHECK(resume.output.find("--resume: cannot read config file 'no/such/run/config.txt'") !=
        std::string::npos);
  auto eval = run("--eval no/such/checkpoint");
  CHECK(eval.status == 2);
  CHECK(eval.output.find("--eval: 'no/such/checkpoint' is neither a checkpoint") !=
        std::string::npos);
  auto both = run("--resume a --eval b");
  CHECK(both.status == 2);
  CHECK(both.output.find("--resume and --eval exclude each other") != std::string::npos);
  auto trace = run("--trace no/such/dir/t.json --max-env-steps 1000");
  CHECK(trace.status == 1);
  CHECK(trace.output.find("cannot write trace file 'no/such/dir/t.json'") != std::string::npos);
  auto mode = run("--mode lockstep");
  CHECK(mode.status == 2);
  CHECK(mode.output.find("config key 'mode': 'lockstep' is not async or sync") !=
        std::string::npos);
}

TEST_CASE("each app's --help is generated: its flags, and every config key it takes") {
  const auto keys = dvla::config_keys();
  REQUIRE(keys.size() > 50);
  for (const auto& [program, args] : {std::pair<std::string, std::string>{DVLA_PPO, "--help"},
                                      {DVLA_SFT, "train --help"},
                                      {DVLA_BENCH, "--help"}}) {
    const auto help = run_program(program, args);
    INFO(program, " ", args);
    CHECK(help.status == 0);
    CHECK(help.output.find("--set KEY=VALUE") != std::string::npos);
    for (const auto& k : keys) {
      // A key's line: the key, then its doc; the default closes the doc.
      const auto at = help.output.find("\n  " + k.key + " ");
      const auto own_line = help.output.find("\n  " + k.key + "\n");
      CHECK_MESSAGE((at != std::string::npos || own_line != std::string::npos), k.key);
    }
    CHECK(help.output.find("(default 0.001)") != std::string::npos);  // ppo.learning_rate
  }
  const auto ppo = run("--help");
  CHECK(ppo.output.find("--max-env-steps N") != std::string::npos);
  // A flag for a key says which key and its default.
  CHECK(ppo.output.find("(samplers, default 2)") != std::string::npos);
  const auto sft = run_program(DVLA_SFT, "--help");
  CHECK(sft.status == 0);
  CHECK(sft.output.find("record") != std::string::npos);
  CHECK(sft.output.find("train") != std::string::npos);
  const auto record = run_program(DVLA_SFT, "record --help");
  CHECK(record.output.find("--per-task N") != std::string::npos);
  const auto suites = run_program(DVLA_BENCH, "--help");
  for (const char* suite : {"efficiency", "pipeline", "replication", "soak"})
    CHECK_MESSAGE(suites.output.find("\n  " + std::string(suite) + " ") != std::string::npos,
                  suite);
  for (const char* app : {DVLA_RENDER, DVLA_NODE}) {
    const auto help = run_program(app, "--help");
    CHECK(help.status == 0);
    CHECK(help.output.find("Usage:") != std::string::npos);
  }
}

TEST_CASE("the other apps refuse bad command lines, naming what was wrong") {
  check_refused(DVLA_SFT, "", 2, "A subcommand is required");
  check_refused(DVLA_SFT, "record --per-task 0 --out x", 2, "--per-task: Value 0 not in range");
  check_refused(DVLA_SFT, "record --per-task 3", 2, "--out is required");
  check_refused(DVLA_SFT, "train --data x --out y --epochs 0", 2, "epochs must be 1..100000");
  check_refused(DVLA_SFT, "train --data /no/such.dvla --out y", 2, "/no/such.dvla");
  check_refused(DVLA_BENCH, "", 2, "which suite? (backpressure, cluster");
  check_refused(DVLA_BENCH, "nosuch", 2, "not expected: nosuch");
  check_refused(DVLA_BENCH, "expert --episodes 0", 2, "--episodes: Value 0 not in range");
  check_refused(DVLA_BENCH, "pipeline --workload car", 2, "--workload: car not in");
  check_refused(DVLA_BENCH, "pipeline --rounds 0", 2, "--rounds: Value 0 not in range");
  check_refused(DVLA_NODE, "", 2, "--coordinator is required");
  check_refused(DVLA_NODE, "--coordinator 127.0.0.1:9 --set seed=3", 2,
                "a node takes only cluster.* settings");
  check_refused(DVLA_RENDER, "--size 8", 2, "--size: Value 8 not in range 16 to 512");
}

TEST_CASE("secure by default: beyond loopback a coordinator or node without TLS refuses to start") {
  const std::string keys = "set cluster.tls.certificate, cluster.tls.key and cluster.tls.cafile";
  // 192.0.2.0/24 is for documentation: nothing is dialled or bound, the refusal comes first.
  check_refused(DVLA_PPO, "--listen 192.0.2.1:7000", 2, keys);
  check_refused(DVLA_PPO, "--listen 192.0.2.1:7000", 2, "cluster.insecure=true");
  check_refused(DVLA_NODE, "--coordinator 192.0.2.1:7000", 2, keys);
  check_refused(DVLA_NODE, "--coordinator node.example:7000", 2, "cluster.insecure=true");
  check_refused(DVLA_NODE, "--coordinator 127.0.0.1:7000 --relay-host 192.0.2.7", 2,
                "the relay listener --relay-host 192.0.2.7");
}

TEST_CASE("dvla-bench pipeline --rounds alternates the modes and reports over all their runs") {
  const auto o =
      run_program(DVLA_BENCH, "pipeline --workload cartpole --steps 4096 --rounds 2 --json");
  INFO(o.output);
  REQUIRE(o.status == 0);
  CHECK(o.output.find("4096 env steps per mode, in 2 alternating rounds") != std::string::npos);
  CHECK(o.output.find("\nmachine: ") != std::string::npos);  // what the cores do together
  const auto j = nlohmann::json::parse(last_line(o.output));
  CHECK(j["parallel_capacity"]["threads"].get<int>() >= 1);
  CHECK(j["parallel_capacity"]["speedup"].get<double>() > 0);
  CHECK(j["workload"] == "cartpole");
  CHECK(j["rounds"] == 2);
  CHECK(j["sync_steps_per_second"].get<double>() > 0);
  CHECK(j["async_steps_per_second"].get<double>() > 0);
  for (const char* mode : {"lane_busy", "sync_lane_busy"}) {
    const double busy = j[mode]["training"].get<double>();
    CHECK_MESSAGE(busy > 0, mode);  // fractions of the summed wall time: within (0, 1]
    CHECK_MESSAGE(busy <= 1, mode);
  }
  double lag_share = 0;
  for (const auto& [lag, share] : j["policy_lag_distribution"].items())
    lag_share += share.get<double>();
  CHECK(lag_share == doctest::Approx(1.0));
}

TEST_CASE("flags for one config key apply in command-line order after --config") {
  const std::string quick = " --max-env-steps 1000 --set eval.episodes=2 --json";
  std::ofstream("test_cli_order.conf") << "seed = 9\n";
  for (const auto& [args, seed] :
       {std::pair<std::string, int>{"--seed 3 --set seed=5", 5},
        {"--set seed=5 --seed 3", 3},
        {"--seed 4 --config test_cli_order.conf", 4},  // the file first, whatever its place
        {"--config test_cli_order.conf", 9}}) {
    const auto o = run(args + quick);
    INFO(args, "\n", o.output);
    REQUIRE(o.status == 0);
    CHECK(nlohmann::json::parse(last_line(o.output))["seed"].get<int>() == seed);
  }
}

TEST_CASE("--json ends stdout with one JSON object holding the summary") {
  std::filesystem::remove("test_cli_trace.json");
  auto o =
      run("--max-env-steps 3000 --json --set eval.episodes=3 --set progress_interval_s=0.2 "
          "--trace test_cli_trace.json");
  REQUIRE(o.status == 0);
  auto summary = nlohmann::json::parse(last_line(o.output));
  for (const char* key : {"env_steps", "wall_seconds", "steps_per_second", "eval_mean_return",
                          "policy_lag_mean", "policy_lag_distribution", "lane_busy",
                          "dropped_stale", "version", "control_rtt_us", "memory_pools"})
    CHECK_MESSAGE(summary.contains(key), key);
  for (const char* lane : {"sampling", "inference", "training", "distribution"})
    CHECK_MESSAGE(summary["lane_busy"].contains(lane), lane);
  for (const char* pool : {"sim", "model"}) {
    REQUIRE_MESSAGE(summary["memory_pools"].contains(pool), pool);
    CHECK(summary["memory_pools"][pool]["budget"].get<uint64_t>() == 2048u << 20);
    CHECK(summary["memory_pools"][pool]["peak_in_use"].get<uint64_t>() > 0);
    CHECK(summary["memory_pools"][pool]["failed_requests"].get<uint64_t>() == 0);
  }
  CHECK(o.output.find("memory pool model: peak") != std::string::npos);
  CHECK(o.output.find("lanes busy: sampling") != std::string::npos);
  std::ifstream trace("test_cli_trace.json");
  CHECK(nlohmann::json::parse(trace)["traceEvents"].size() > 10);
  CHECK(summary["env_steps"].get<uint64_t>() >= 3000);
  CHECK(summary["eval_episodes"].get<int>() == 3);
  CHECK(o.output.find("env steps") != std::string::npos);  // progress was shown
}

TEST_CASE("--resume goes on from a run's last checkpoint; --eval evaluates a checkpoint") {
  const std::string dir = "test_cli_resume";
  std::filesystem::remove_all(dir);
  const std::string quick = " --set eval.episodes=3 --json";
  auto first = run("--max-env-steps 4000 --logdir " + dir + quick);
  REQUIRE(first.status == 0);
  const auto s1 = nlohmann::json::parse(last_line(first.output));
  auto done = run("--resume " + dir + quick);  // max_env_steps is still 4000: nothing to do
  CHECK(done.status == 1);
  CHECK(done.output.find("raise --max-env-steps to train on") != std::string::npos);
  auto moved = run("--resume " + dir + " --logdir elsewhere");
  CHECK(moved.status == 2);
  auto second = run("--resume " + dir + " --max-env-steps 8000" + quick);
  REQUIRE(second.status == 0);
  CHECK(second.output.find("resuming from " + dir + "/checkpoints/v") != std::string::npos);
  const auto s2 = nlohmann::json::parse(last_line(second.output));
  CHECK(s2["version"].get<uint64_t>() > s1["version"].get<uint64_t>());
  CHECK(s2["env_steps"].get<uint64_t>() >= 8000);
  std::ifstream progress(dir + "/progress.jsonl");
  uint64_t previous = 0, lines = 0;
  bool rising = true;
  for (std::string line; std::getline(progress, line); ++lines) {
    const auto steps = nlohmann::json::parse(line)["env_steps"].get<uint64_t>();
    rising = rising && steps >= previous;
    previous = steps;
  }
  CHECK(lines >= 2);  // both runs appended to one curve
  CHECK(rising);
  auto eval = run("--eval " + dir + quick);
  REQUIRE(eval.status == 0);
  const auto e = nlohmann::json::parse(last_line(eval.output));
  CHECK(e["eval_episodes"].get<int>() == 3);
  const auto checkpoint = e["checkpoint"].get<std::string>();
  CHECK(checkpoint.find(dir + "/checkpoints/v") == 0);
  // On the run's evaluator's threads (graph.torch_threads), so the run's figure comes again.
  CHECK(eval.output.find("on 3 episodes of cartpole, 1 LibTorch thread\n") != std::string::npos);
  auto two = run("--eval " + dir + " --set graph.torch_threads=2" + quick);
  CHECK(two.output.find("cartpole, 2 LibTorch threads\n") != std::string::npos);

  // evaluate-checkpoints.sh: every kept checkpoint again, on more episodes, one row per version.
  const std::string env = std::string("DVLA_PPO=") + DVLA_PPO + " ";
  auto again = run_program(env + DVLA_EVALUATE_CHECKPOINTS, "--episodes 4 " + dir);
  INFO(again.output);
  REQUIRE(again.status == 0);
  std::vector<nlohmann::json> rows;
  std::ifstream file(dir + "/checkpoint-evaluations.jsonl");
  for (std::string line; std::getline(file, line);) rows.push_back(nlohmann::json::parse(line));
  size_t kept = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/checkpoints"))
    kept += entry.path().filename().string().rfind("v", 0) == 0 && !entry.is_symlink();
  REQUIRE(rows.size() == kept);
  uint64_t last_version = 0;
  for (const auto& row : rows) {
    const auto& ev = row["last_eval"];
    const auto version = ev["version"].get<uint64_t>();
    CHECK(version > last_version);  // in version order
    last_version = version;
    char name[16];
    std::snprintf(name, sizeof name, "v%08llu", static_cast<unsigned long long>(version));
    const auto saved =
        nlohmann::json::parse(std::ifstream(dir + "/checkpoints/" + name + "/state.json"));
    CHECK(ev["env_steps"] == saved["env_steps"]);
    CHECK(ev["episodes"].get<int>() == 4);
    if (dir + "/checkpoints/" + name == checkpoint) {
      auto four = run("--eval " + checkpoint + " --set eval.episodes=4 --json");
      CHECK(ev["success"] == nlohmann::json::parse(last_line(four.output))["eval_success"]);
    }
  }
  auto kept_rows = run_program(env + DVLA_EVALUATE_CHECKPOINTS, "--episodes 4 " + dir);
  CHECK(kept_rows.output.find("already evaluated on 4 or more episodes") != std::string::npos);
  // The analysis scripts read it in place of progress.jsonl.
  auto reach = run_program(DVLA_STEPS_TO_SUCCESS,
                           "--window 1 --evaluations checkpoint-evaluations.jsonl 0 " + dir);
  INFO(reach.output);
  CHECK(reach.status == 0);
  CHECK(reach.output.find(dir + "  ") != std::string::npos);
  check_refused(env + DVLA_EVALUATE_CHECKPOINTS, "no/such/run", 1,
                "'no/such/run/checkpoints' has no checkpoints (vNNNNNNNN)");
  check_refused(env + DVLA_EVALUATE_CHECKPOINTS, "--episodes many " + dir, 2,
                "--episodes 'many' is not a positive count");
  check_refused(DVLA_STEPS_TO_SUCCESS, "--evaluations none.jsonl 0.5 " + dir, 1,
                "'" + dir + "/none.jsonl' is missing or empty");
}

namespace {

// Runs dvla-ppo in the background on CartPole with a logdir `dir` and `eval_episodes`; once it
// has trained (a version in its progress log; 60 s at most) runs `meanwhile` (shell lines, $pid
// is dvla-ppo's), then stops it with SIGTERM. The output: dvla-ppo's, after "exit status N".
Outcome signalled_run(const std::string& dir, int eval_episodes, const std::string& meanwhile) {
  std::filesystem::remove_all(dir);
  std::ofstream(dir + ".sh") << DVLA_PPO
                             << " --max-env-steps 1000000000 --set eval.episodes=" << eval_episodes
                             << " --json"
                             << " --set progress_interval_s=0.1 --logdir " << dir << " > " << dir
                             << ".out 2>&1 &\n"
                             << "pid=$!\n"
                             << "for i in $(seq 600); do\n"
                             << "  grep -qs '\"version\":[1-9]' " << dir
                             << "/progress.jsonl && break; sleep 0.1\n"
                             << "done\n"
                             << meanwhile
                             << "kill -TERM $pid; wait $pid; echo \"exit status $?\"; cat " << dir
                             << ".out\n";
  return run_program("sh", dir + ".sh");
}

}  // namespace

TEST_CASE(
    "--resume skips a damaged newest checkpoint naming it; one without optimizer state needs "
    "--fresh-optimizer") {
  const std::string dir = "test_cli_damaged";
  std::filesystem::remove_all(dir);
  const std::string quick =
      " --set eval.episodes=2 --set checkpoint.every=1 --set checkpoint.keep=3 --json";
  REQUIRE(run("--max-env-steps 6000 --logdir " + dir + quick).status == 0);
  auto latest_of = [&] {
    std::ifstream in(dir + "/checkpoints/latest");
    std::string name;
    in >> name;
    return dir + "/checkpoints/" + name;
  };
  const auto damaged = latest_of();
  {
    std::fstream f(damaged + "/weights", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x7f');
  }
  auto skipped = run("--resume " + dir + " --max-env-steps 9000" + quick);
  REQUIRE_MESSAGE(skipped.status == 0, skipped.output);
  CHECK_MESSAGE(skipped.output.find("--resume skips " + damaged + ": checkpoint '" + damaged +
                                    "': 'weights' is damaged") != std::string::npos,
                skipped.output);
  CHECK(skipped.output.find("resuming from " + damaged) == std::string::npos);
  CHECK(skipped.output.find("resuming from " + dir + "/checkpoints/v") != std::string::npos);
  // The newest checkpoint now, as if it had been saved without optimizer state.
  const auto bare = latest_of();
  std::filesystem::remove(bare + "/optimizer.pt");
  auto manifest = nlohmann::json::parse(std::ifstream(bare + "/manifest.json"));
  auto& files = manifest["files"];
  files.erase(std::remove_if(files.begin(), files.end(),
                             [](const auto& f) { return f["file"] == "optimizer.pt"; }),
              files.end());
  std::ofstream(bare + "/manifest.json") << manifest.dump();
  auto refused = run("--resume " + dir + " --max-env-steps 12000" + quick);
  CHECK(refused.status == 1);
  CHECK_MESSAGE(refused.output.find("has no optimizer state (optimizer.pt); --fresh-optimizer") !=
                    std::string::npos,
                refused.output);
  auto fresh = run("--resume " + dir + " --max-env-steps 12000 --fresh-optimizer" + quick);
  CHECK_MESSAGE(fresh.status == 0, fresh.output);
  CHECK(fresh.output.find("a fresh optimizer starts") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("SIGTERM (like Ctrl-C) ends a run with its final checkpoint, evaluation and summary") {
  const std::string dir = "test_cli_stop";
  auto o = signalled_run(dir, 3, "");
  INFO(o.output);
  REQUIRE(o.status == 0);
  CHECK(o.output.find("exit status 0") != std::string::npos);
  CHECK(o.output.find("dvla-ppo: SIGTERM: stopping") != std::string::npos);
  CHECK(o.output.find("(stopped early: SIGTERM)") != std::string::npos);
  const auto summary = nlohmann::json::parse(last_line(o.output));
  CHECK(summary["stopped_by"] == "SIGTERM");
  CHECK(summary["env_steps"].get<uint64_t>() < 1000000000u);
  CHECK(summary["eval_episodes"].get<int>() == 3);
  CHECK(summary["checkpoint"].get<std::string>().find(dir + "/checkpoints/v") == 0);
  CHECK(std::filesystem::exists(dir + "/summary.json"));
}

TEST_CASE("SIGUSR1 evaluates the latest weights during a run and the run goes on") {
  const std::string dir = "test_cli_usr1";
  // SIGUSR1, then SIGTERM once the evaluation's line is printed (or after 60 s); the SIGUSR1
  // message names that line too, so only a line that starts with it counts.
  auto o = signalled_run(dir, 2,
                         "kill -USR1 $pid\n"
                         "for i in $(seq 600); do\n"
                         "  grep -qs '^evaluation of version' " +
                             dir +
                             ".out && break; sleep 0.1\n"
                             "done\n");
  INFO(o.output);
  REQUIRE(o.status == 0);
  CHECK(o.output.find("exit status 0") != std::string::npos);
  CHECK(o.output.find("dvla-ppo: SIGUSR1: evaluating the latest weights") != std::string::npos);
  CHECK(o.output.find("\nevaluation of version ") != std::string::npos);  // stdout's own line
  const auto summary = nlohmann::json::parse(last_line(o.output));
  CHECK(summary["stopped_by"] == "SIGTERM");  // SIGUSR1 did not stop it
  CHECK(summary["evaluations"].get<int>() == 1);
  CHECK(summary["last_eval"]["version"].get<int>() >= 1);
}

TEST_CASE("--max-seconds stops a run on the wall clock and says so") {
  auto o = run("--max-env-steps 1000000000 --max-seconds 1 --set eval.episodes=3 --json");
  REQUIRE(o.status == 0);
  const auto summary = nlohmann::json::parse(last_line(o.output));
  CHECK(summary["stopped_by"] == "max_seconds");
  CHECK(summary["env_steps"].get<uint64_t>() < 1000000000u);
  auto bad = run("--max-seconds -1");
  CHECK(bad.status == 2);
  CHECK(bad.output.find("max_seconds must be 0 (no limit) or positive") != std::string::npos);
}

TEST_CASE("scripts/plot-run.sh draws a run's curves as a PNG and names a missing log") {
  const std::string dir = "test_cli_plot";
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir + ".png");
  auto trained =
      run("--max-env-steps 6000 --set eval.every=2 --set eval.episodes=2 "
          "--set progress_interval_s=0.1 --logdir " +
          dir);
  REQUIRE(trained.status == 0);
  auto plot = run_program(DVLA_PLOT_RUN, dir + ".png " + dir + " " + dir);  // two runs overlaid
  INFO(plot.output);
  REQUIRE(plot.status == 0);
  std::ifstream png(dir + ".png", std::ios::binary);
  std::string magic(4, '\0');
  png.read(magic.data(), 4);
  CHECK(magic == "\x89PNG");
  CHECK(std::filesystem::file_size(dir + ".png") > 10'000);
  // Evaluation points from another file of progress.jsonl's shape (evaluate-checkpoints.sh's).
  std::filesystem::copy_file(dir + "/progress.jsonl", dir + "/evals.jsonl");
  std::filesystem::remove(dir + ".png");
  auto again = run_program(DVLA_PLOT_RUN, "--evaluations evals.jsonl " + dir + ".png " + dir);
  INFO(again.output);
  CHECK(again.status == 0);
  CHECK(std::filesystem::exists(dir + ".png"));
  check_refused(DVLA_PLOT_RUN, "--evaluations none.jsonl x.png " + dir, 1,
                "'" + dir + "/none.jsonl' is missing or empty");
  check_refused(DVLA_PLOT_RUN, "x.png no/such/run", 1,
                "'no/such/run/progress.jsonl' is missing or empty");
  check_refused(DVLA_PLOT_RUN, "only.png", 2, "usage: scripts/plot-run.sh");
}

namespace {

struct Evaluation {
  int version;
  int env_steps;
  double success;
  double lift;  // success of the lift family
  int episodes = 1;
};

// A progress.jsonl of these evaluations, each shown on two progress lines as a run shows it until
// the next evaluation.
void write_evaluations(const std::string& dir, std::initializer_list<Evaluation> evaluations) {
  std::filesystem::create_directories(dir);
  std::ofstream out(dir + "/progress.jsonl");
  for (const auto& [version, steps, success, lift, episodes] : evaluations)
    for (int shown = 0; shown < 2; ++shown)
      out << nlohmann::json{{"env_steps", steps + 100 * shown},
                            {"last_eval",
                             {{"version", version},
                              {"env_steps", steps},
                              {"episodes", episodes},
                              {"success", success},
                              {"success_family", {{"lift", lift}}}}}}
                 .dump()
          << "\n";
}

// The words of the line of `text` that starts with `first`, `first` included; empty if none does.
std::vector<std::string> words_of_line(const std::string& text, const std::string& first) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (!words.empty() && words[0] == first) return words;
  }
  return {};
}

}  // namespace

TEST_CASE("scripts/steps-to-success.sh finds the env steps to a success rate and compares runs") {
  write_evaluations("test_cli_reach_a", {{10, 1000, 0.5, 0.5},
                                         {20, 2000, 0.85, 0.5},
                                         {30, 3000, 0.7, 0.5},
                                         {40, 4000, 0.8, 0.5},
                                         {50, 5000, 0.9, 0.5}});
  write_evaluations("test_cli_reach_b",
                    {{10, 1500, 0.9, 0.6}, {20, 3000, 0.9, 0.7}, {30, 4500, 0.9, 0.9}});
  auto reach = run_program(DVLA_STEPS_TO_SUCCESS, "0.8 test_cli_reach_a test_cli_reach_b");
  INFO(reach.output);
  REQUIRE(reach.status == 0);
  // a: first at or above 0.8 at v20; the mean of 3 reaches 0.8 only at v50 (0.7, 0.8, 0.9).
  CHECK(reach.output.find("test_cli_reach_a              5  0.900 | v20 2000               | "
                          "v50 5000               | 1.00 1.00") != std::string::npos);
  // b: from its first evaluation; the mean of 3 needs three evaluations. Env steps vs a's.
  CHECK(reach.output.find("test_cli_reach_b              3  0.900 | v10 1500               | "
                          "v30 4500               | 0.75 0.90") != std::string::npos);
  auto family = run_program(DVLA_STEPS_TO_SUCCESS,
                            "--family lift --window 1 0.7 test_cli_reach_a test_cli_reach_b");
  INFO(family.output);
  CHECK(family.output.find("test_cli_reach_a              5  0.500 | never                  | "
                           "never                  | - -") != std::string::npos);
  CHECK(family.output.find("test_cli_reach_b              3  0.900 | v20 3000               | "
                           "v20 3000               | - -") != std::string::npos);
  check_refused(DVLA_STEPS_TO_SUCCESS, "--family push 0.5 test_cli_reach_a", 1,
                "'test_cli_reach_a' has evaluations without family 'push'");
  check_refused(DVLA_STEPS_TO_SUCCESS, "80 test_cli_reach_a", 2,
                "THRESHOLD '80' is not a success rate in [0, 1]");
  check_refused(DVLA_STEPS_TO_SUCCESS, "0.8 no/such/run", 1,
                "'no/such/run/progress.jsonl' is missing or empty");
}

TEST_CASE("scripts/success-by-steps.sh averages evaluations per window of env steps, pools seeds") {
  write_evaluations("test_cli_curve_a", {{10, 1000, 0.5, 0.5},
                                         {20, 2000, 0.85, 0.5},
                                         {30, 3000, 0.7, 0.5},
                                         {40, 4000, 0.8, 0.5},
                                         {50, 5000, 0.9, 0.5}});
  write_evaluations("test_cli_curve_b",
                    {{10, 1500, 0.9, 0.6}, {20, 3000, 0.9, 0.7}, {30, 4500, 0.9, 0.9}});
  write_evaluations("test_cli_curve_c", {{10, 1000, 1.0, 1.0, 3}, {20, 1500, 0.0, 0.0, 1}});
  auto curve = run_program(DVLA_SUCCESS_BY_STEPS,
                           "--rate 0.8 2000 test_cli_curve_a test_cli_curve_b "
                           "test_cli_curve_a+test_cli_curve_b test_cli_curve_c");
  INFO(curve.output);
  REQUIRE(curve.status == 0);
  CHECK(words_of_line(curve.output, "run") ==
        std::vector<std::string>{"run", "0-2k", "2k-4k", "4k-6k", "|", "steps", "to", "0.8", "vs",
                                 "the", "first", "run"});
  // a: 0.5 | (0.85 + 0.7) / 2 | (0.8 + 0.9) / 2; 0.8 between the midpoints 3000 and 5000:
  // 3000 + (0.8 - 0.775) / (0.85 - 0.775) * 2000 = 3666.
  CHECK(words_of_line(curve.output, "test_cli_curve_a") ==
        std::vector<std::string>{"test_cli_curve_a", "0.500(1)", "0.775(2)", "0.850(2)", "|",
                                 "3666", "1.00"});
  // b reaches 0.8 in its first window: its midpoint.
  CHECK(words_of_line(curve.output, "test_cli_curve_b") ==
        std::vector<std::string>{"test_cli_curve_b", "0.900(1)", "0.900(1)", "0.900(1)", "|",
                                 "1000", "0.27"});
  // a and b pooled: 0.7 | 0.817 | 0.867; 1000 + (0.8 - 0.7) / (0.8167 - 0.7) * 2000 = 2714.
  CHECK(words_of_line(curve.output, "test_cli_curve_a+test_cli_curve_b") ==
        std::vector<std::string>{"test_cli_curve_a+test_cli_curve_b", "0.700(2)", "0.817(3)",
                                 "0.867(3)", "|", "2714", "0.74"});
  // Weighted by episodes: (3 * 1.0 + 1 * 0.0) / 4; no evaluations after 2000.
  CHECK(words_of_line(curve.output, "test_cli_curve_c") ==
        std::vector<std::string>{"test_cli_curve_c", "0.750(2)", "-", "-", "|", "never", "-"});
  auto family = run_program(DVLA_SUCCESS_BY_STEPS, "--family lift 3000 test_cli_curve_b");
  INFO(family.output);
  CHECK(words_of_line(family.output, "test_cli_curve_b") ==
        std::vector<std::string>{"test_cli_curve_b", "0.600(1)", "0.800(2)"});
  check_refused(DVLA_SUCCESS_BY_STEPS, "--family push 1000 test_cli_curve_a", 1,
                "'test_cli_curve_a' has evaluations without family 'push'");
  check_refused(DVLA_SUCCESS_BY_STEPS, "1e5 test_cli_curve_a", 2,
                "WINDOW '1e5' is not a positive count of env steps");
  check_refused(DVLA_SUCCESS_BY_STEPS, "--rate 80 1000 test_cli_curve_a", 2,
                "--rate '80' is not a success rate in [0, 1]");
  check_refused(DVLA_SUCCESS_BY_STEPS, "1000 test_cli_curve_a+no/such/run", 1,
                "'no/such/run/progress.jsonl' is missing or empty");
}

TEST_CASE(
    "dvla-render writes an episode as a PNG or GIF, for the scripted expert and a trained run; "
    "a run's evaluations record videos") {
  const std::string dir = "test_cli_run";
  std::filesystem::remove_all(dir);
  auto scripted =
      run_program(DVLA_RENDER, "--task stack/red-on-blue --size 32 --out " + dir + "-a.png");
  CHECK(scripted.status == 0);
  CHECK(scripted.output.find("success at step") != std::string::npos);
  std::ifstream png(dir + "-a.png", std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  CHECK(std::string(magic + 1, 3) == "PNG");

  auto train =
      run("--env tabletop --suite lift --max-env-steps 600 --samplers 1 "
          "--envs-per-sampler 2 --set tabletop.image_size=16 --set ppo.batch_size=256 "
          "--set eval.episodes=2 --set eval.every=1 --set eval.video_episodes=1 "
          "--set eval.backlog=10 --set progress_interval_s=0.05 --logdir " +
          dir);
  INFO(train.output);
  REQUIRE(train.status == 0);
  CHECK(std::filesystem::exists(dir + "/final.weights"));
  auto trained = run_program(
      DVLA_RENDER, "--task lift/blue --size 32 --policy " + dir + " --out " + dir + "-b.png");
  CHECK(trained.status == 0);
  CHECK(std::filesystem::exists(dir + "-b.png"));

  // Each evaluation during the run: a GIF of its first episode (16-pixel cameras scaled to 128),
  // named on its progress line and shown by TensorBoard as eval/video. The run's end waits for
  // its evaluations (eval.backlog), so at least the last one is reported.
  std::vector<std::string> videos, final_videos;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/videos"))
    (entry.path().filename().string().rfind("final_v", 0) == 0 ? final_videos : videos)
        .push_back(entry.path().string());
  REQUIRE(!videos.empty());
  CHECK(train.output.find("  video: " + dir + "/videos/eval_v") != std::string::npos);
  // A frame for the start and each step: lift is not solved this early, so every episode of
  // the evaluation ran its full length, the mean.
  std::map<std::string, double> lengths;
  std::ifstream progress(dir + "/progress.jsonl");
  for (std::string line; std::getline(progress, line);) {
    const auto row = nlohmann::json::parse(line);
    if (row.contains("last_eval") && row["last_eval"]["success"].get<double>() == 0)
      lengths[row["last_eval"]["video"].get<std::string>()] =
          row["last_eval"]["mean_length"].get<double>();
  }
  REQUIRE(!lengths.empty());
  const auto& [shown, length] = *lengths.begin();
  CHECK(std::find(videos.begin(), videos.end(), shown) != videos.end());
  std::ifstream video_file(shown, std::ios::binary);
  const std::string video{std::istreambuf_iterator<char>(video_file), {}};
  const auto frames = dvla::decode_gif(video);
  REQUIRE(frames);
  CHECK(frames->size() == 1 + length);
  CHECK(frames->front().width == 2 * 128);
  CHECK(frames->front().height == 128);
  size_t images = 0, final_images = 0;
  for (const auto& file : dvla::tensorboard::event_files(dir)) {
    const auto events = dvla::tensorboard::read_event_file(file);
    REQUIRE(events);
    for (const auto& e : *events)
      for (const auto& i : e.summary.images) {
        images += i.tag == "eval/video" && i.width == 256;
        final_images += i.tag == "final_eval/video" && i.width == 256;
      }
  }
  // Each reported evaluation's (one still running when the run ended wrote its GIF unreported).
  CHECK(images >= lengths.size());
  CHECK(images <= videos.size());
  // The final evaluation's video too: named, decodable, in TensorBoard.
  REQUIRE(final_videos.size() == 1);
  CHECK(train.output.find("video of the final evaluation: " + final_videos.front()) !=
        std::string::npos);
  std::ifstream final_file(final_videos.front(), std::ios::binary);
  const auto final_frames =
      dvla::decode_gif(std::string{std::istreambuf_iterator<char>(final_file), {}});
  REQUIRE(final_frames);
  CHECK(final_frames->size() >= 2);
  CHECK(final_frames->front().width == 2 * 128);
  CHECK(final_images == 1);

  auto gif = run_program(DVLA_RENDER, "--task lift/blue --size 32 --gif --policy " + dir +
                                          " --out " + dir + "-c.gif");
  INFO(gif.output);
  CHECK(gif.status == 0);
  std::ifstream gif_file(dir + "-c.gif", std::ios::binary);
  const auto episode =
      dvla::decode_gif(std::string{std::istreambuf_iterator<char>(gif_file), {}});
  REQUIRE(episode);
  std::smatch steps;
  const std::regex outcome("(success at step|no success in) (\\d+)");
  REQUIRE(std::regex_search(gif.output, steps, outcome));
  CHECK(episode->size() == 1 + std::stoul(steps[2]));
  CHECK(episode->front().width == 2 * 32 + 2);

  auto bad = run_program(DVLA_RENDER, "--task lift/purple");
  CHECK(bad.status == 2);
  CHECK(bad.output.find("unknown tabletop task 'lift/purple'") != std::string::npos);
  auto missing = run_program(DVLA_RENDER, "--policy /no/such/run");
  CHECK(missing.status == 2);
  CHECK(missing.output.find("cannot read config file '/no/such/run/config.txt'") !=
        std::string::npos);
}
