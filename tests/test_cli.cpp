// dvla-ppo as a user meets it: wrong flags fail with a message; --json ends with the summary.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr
};

Outcome run(const std::string& args) {
  Outcome o;
  const std::string command = std::string(DVLA_PPO) + " " + args + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p);
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.output.append(buf.data(), n);
  const int raw = pclose(p);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return o;
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
  CHECK(unknown.output.find("unknown flag '--sampler'") != std::string::npos);
  auto value = run("--samplers many");
  CHECK(value.status == 2);
  CHECK(value.output.find("config key 'samplers': 'many' is not an integer") != std::string::npos);
  auto missing = run("--seed");
  CHECK(missing.status == 2);
  CHECK(missing.output.find("--seed needs a value") != std::string::npos);
  auto config = run("--config /no/such.conf");
  CHECK(config.status == 2);
  CHECK(config.output.find("cannot read config file '/no/such.conf'") != std::string::npos);
  auto later = run("--resume runs/x");
  CHECK(later.status == 2);
  CHECK(later.output.find("--resume is not available yet") != std::string::npos);
}

TEST_CASE("--help lists flags and config keys") {
  auto help = run("--help");
  CHECK(help.status == 0);
  CHECK(help.output.find("--max-env-steps N") != std::string::npos);
  CHECK(help.output.find("ppo.learning_rate") != std::string::npos);
}

TEST_CASE("--json ends stdout with one JSON object holding the summary") {
  auto o = run("--max-env-steps 3000 --json --set eval.episodes=3 --set progress_interval_s=0.2");
  REQUIRE(o.status == 0);
  auto summary = nlohmann::json::parse(last_line(o.output));
  for (const char* key : {"env_steps", "wall_seconds", "steps_per_second", "eval_mean_return",
                          "policy_lag_mean", "dropped_stale", "version"})
    CHECK_MESSAGE(summary.contains(key), key);
  CHECK(summary["env_steps"].get<uint64_t>() >= 3000);
  CHECK(summary["eval_episodes"].get<int>() == 3);
  CHECK(o.output.find("env steps") != std::string::npos);  // progress was shown
}
