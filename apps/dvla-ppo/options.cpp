#include "dvla-ppo/options.hpp"

#include <fmt/core.h>

#include <map>
#include <utility>
#include <vector>

#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include "common/command_line.hpp"

namespace dvla::apps {
namespace {

// Flags that are shorthand for one config key.
const std::map<std::string, std::string>& key_flags() {
  static const std::map<std::string, std::string> flags{
      {"--env", "env"},
      {"--algo", "algo"},
      {"--mode", "mode"},
      {"--max-env-steps", "max_env_steps"},
      {"--max-seconds", "max_seconds"},
      {"--seed", "seed"},
      {"--samplers", "samplers"},
      {"--envs-per-sampler", "envs_per_sampler"},
      {"--logdir", "logdir"},
      {"--suite", "tabletop.suite"},
      {"--init", "model.init"},
      {"--trace", "trace"},
      {"--nodes", "cluster.nodes"},
  };
  return flags;
}

// The config a resumed run or an evaluated checkpoint was made with.
Status load_base_config(PpoOptions& options) {
  if (!options.resume.empty() && !options.eval.empty())
    return Error("--resume and --eval exclude each other");
  std::string file;
  if (!options.resume.empty()) {
    file = options.resume + "/config.txt";
  } else if (!options.eval.empty()) {
    auto dir = resolve_checkpoint(options.eval);
    if (!dir) return dir.error().within("--eval");
    options.eval = *dir;
    file = *dir + "/config.txt";
  } else {
    return Status::ok();
  }
  if (auto s = load_config_file(options.config, file); !s)
    return s.error().within(options.resume.empty() ? "--eval" : "--resume");
  if (!options.resume.empty()) options.config.run.logdir = options.resume;
  return Status::ok();
}

}  // namespace

Expected<PpoOptions> parse_ppo_options(int argc, char** argv) {
  PpoOptions options;
  std::vector<std::pair<std::string, std::string>> settings;  // key, value, in order
  std::string config_file;
  CommandLine line(argc, argv);
  while (!line.done()) {
    const std::string flag = line.take();
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      return options;
    }
    if (flag == "--json") {
      options.json = true;
    } else if (flag == "--fresh-optimizer") {
      options.fresh_optimizer = true;
    } else if (flag == "--config") {
      auto v = line.value_of(flag);
      if (!v) return v.error();
      config_file = *v;
    } else if (flag == "--set") {
      auto v = line.value_of(flag);
      if (!v) return v.error();
      const auto eq = v->find('=');
      if (eq == std::string::npos) return Error("--set needs key=value, got '" + *v + "'");
      settings.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else if (flag == "--resume" || flag == "--eval") {
      auto v = line.value_of(flag);
      if (!v) return v.error();
      (flag == "--resume" ? options.resume : options.eval) = *v;
    } else if (flag == "--listen") {
      // A bare port listens on 127.0.0.1 (plain TCP reaches this machine only).
      auto v = line.value_of(flag);
      if (!v) return v.error();
      settings.emplace_back("cluster.listen",
                            v->find(':') == std::string::npos ? "127.0.0.1:" + *v : *v);
    } else if (auto k = key_flags().find(flag); k != key_flags().end()) {
      auto v = line.value_of(flag);
      if (!v) return v.error();
      settings.emplace_back(k->second, *v);
    } else {
      return Error("unknown flag '" + flag + "'");
    }
  }
  if (options.fresh_optimizer && options.resume.empty())
    return Error("--fresh-optimizer is for --resume (a new run starts a fresh optimizer anyway)");
  if (auto s = load_base_config(options); !s) return s.error();
  if (!config_file.empty())
    if (auto s = load_config_file(options.config, config_file); !s) return s.error();
  for (const auto& [key, value] : settings) {
    if (!options.resume.empty() && key == "logdir" && value != options.resume)
      return Error("--resume continues in its own directory; --logdir cannot move it");
    if (auto s = set_config_value(options.config, key, value); !s) return s.error();
  }
  if (auto s = validate(options.config); !s) return s.error();
  return options;
}

std::string ppo_help() {
  std::string text =
      "dvla-ppo: train a policy with asynchronous PPO or GRPO through dvla's actor graph\n"
      "(samplers -> inference -> samplers -> trainer -> distributor -> inference), then\n"
      "evaluate it. Without flags it trains CartPole, the embedded default task.\n\n"
      "Usage: dvla-ppo [flags]\n\n"
      "Flags:\n"
      "  --config FILE           read settings from FILE: TOML with [sections] when it ends in\n"
      "                          .toml (configs/lift-grpo.toml), else lines of key = value\n"
      "  --set KEY=VALUE         set any config key (see below); applied after --config\n"
      "  --env NAME              env: cartpole | pendulum | inverted_pendulum | synthetic |\n"
      "                          tabletop\n"
      "  --suite NAME            tabletop.suite: lift | push | place_bowl | stack | mixed\n"
      "  --algo NAME             algo: ppo | grpo\n"
      "  --mode NAME             mode: async (Swimlane) or sync (lock-step baseline)\n"
      "  --max-env-steps N       max_env_steps\n"
      "  --max-seconds S         max_seconds: stop after S seconds of wall clock (as at the\n"
      "                          end of max_env_steps); Ctrl-C or SIGTERM stops the same\n"
      "                          way, a second one quits at once\n"
      "  --seed S                seed\n"
      "  --samplers N            samplers\n"
      "  --envs-per-sampler N    envs_per_sampler\n"
      "  --init CHECKPOINT       model.init: start from a checkpoint's weights (dvla-sft's)\n"
      "  --logdir DIR            logdir: writes progress.jsonl, summary.json, config.txt,\n"
      "                          final.weights (dvla-render --policy DIR shows the policy) and\n"
      "                          checkpoints/ (every checkpoint.every versions and at the end)\n"
      "  --resume DIR            continue the run in logdir DIR from its latest checkpoint:\n"
      "                          its config, then the flags given (raise --max-env-steps to\n"
      "                          train longer); version, counters and curve go on. A damaged\n"
      "                          newest checkpoint is skipped (named, with the reason) for\n"
      "                          the newest whole one\n"
      "  --fresh-optimizer       with --resume: go on from a checkpoint that has no optimizer\n"
      "                          state with a fresh one (else that is an error)\n"
      "  --eval CHECKPOINT       only evaluate a checkpoint (or a run directory's best) on\n"
      "                          eval.episodes of the evaluation states\n"
      "  --trace FILE            trace: write every lane's spans as Chrome trace-event JSON\n"
      "                          (open in Perfetto or chrome://tracing)\n"
      "  --listen [HOST:]PORT    cluster.listen: coordinate a multi-node run (dvla-node\n"
      "                          --coordinator HOST:PORT joins; a bare PORT: 127.0.0.1)\n"
      "  --nodes N               cluster.nodes: nodes to wait for before collecting\n"
      "  --json                  print the summary as one JSON object on the last stdout line\n"
      "  --help                  this text\n\n"
      "Config keys (default):\n";
  for (const auto& k : config_keys())
    text += fmt::format("  {:<28} {} ({})\n", k.key, k.description,
                        k.default_value.empty() ? "empty" : k.default_value);
  text +=
      "\nExit status: 0 on success; 1 if training or evaluation failed; 2 for bad flags or\n"
      "config. Errors go to stderr.\n";
  return text;
}

}  // namespace dvla::apps
