#include "dvla-ppo/options.hpp"

#include <CLI/CLI.hpp>

#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include "common/command_line.hpp"
#include "common/config_flags.hpp"

namespace dvla::apps {
namespace {

const char* description =
    "dvla-ppo: train a policy with asynchronous PPO or GRPO through dvla's actor graph "
    "(samplers -> inference -> samplers -> trainer -> distributor -> inference), then "
    "evaluate it. Without flags it trains CartPole, the embedded default task.";

const char* exit_status =
    "Exit status: 0 on success; 1 if training or evaluation failed; 2 for bad flags or "
    "config. Errors go to stderr.";

// The flags that are shorthand for one config key; their help comes from the key's.
void add_key_flags(ConfigFlags& flags) {
  flags.add_key_flag("--env", "env", "NAME");
  flags.add_key_flag("--suite", "tabletop.suite", "NAME");
  flags.add_key_flag("--algo", "algo", "NAME");
  flags.add_key_flag("--mode", "mode", "NAME");
  flags.add_key_flag("--max-env-steps", "max_env_steps", "N");
  flags.add_key_flag("--max-seconds", "max_seconds", "S",
                     "Ctrl-C or SIGTERM stops the same way; a second one quits at once");
  flags.add_key_flag("--seed", "seed", "S");
  flags.add_key_flag("--samplers", "samplers", "N");
  flags.add_key_flag("--envs-per-sampler", "envs_per_sampler", "N");
  flags.add_key_flag("--init", "model.init", "CHECKPOINT");
  flags.add_key_flag("--logdir", "logdir", "DIR",
                     "dvla-render --policy DIR shows the policy");
  flags.add_key_flag("--trace", "trace", "FILE");
  flags.add_key_flag("--listen", "cluster.listen", "[HOST:]PORT",
                     "dvla-node --coordinator HOST:PORT joins; a bare PORT: 127.0.0.1",
                     [](const std::string& v) {
                       // Plain TCP on a bare port reaches this machine only.
                       return v.find(':') == std::string::npos ? "127.0.0.1:" + v : v;
                     });
  flags.add_key_flag("--nodes", "cluster.nodes", "N");
}

void add_flags(CLI::App& app, ConfigFlags& flags, PpoOptions& options) {
  flags.add_config_file_flag(
      "read settings from FILE: TOML with [sections] when it ends in .toml "
      "(configs/lift-grpo.toml), else lines of key = value; applied before the other flags");
  flags.add_set_flag("set any config key (listed below)");
  add_key_flags(flags);
  app.add_option("--resume", options.resume,
                 flag_help("continue the run in logdir DIR from its latest checkpoint: its "
                           "config, then the flags given (raise --max-env-steps to train "
                           "longer); version, counters and curve go on. A damaged newest "
                           "checkpoint is skipped (named, with the reason) for the newest "
                           "whole one"))
      ->type_name("DIR");
  app.add_flag("--fresh-optimizer", options.fresh_optimizer,
               flag_help("with --resume: go on from a checkpoint that has no optimizer state "
                         "with a fresh one (else that is an error)"));
  app.add_option("--eval", options.eval,
                 flag_help("only evaluate a checkpoint (or a run directory's best) on "
                           "eval.episodes of the evaluation states"))
      ->type_name("CHECKPOINT");
  app.add_flag("--json", options.json,
               "print the summary as one JSON object on the last stdout line");
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

// Everything CLI11 cannot check: flags that exclude each other, and the config they make.
Status complete(PpoOptions& options, const ConfigFlags& flags) {
  if (options.fresh_optimizer && options.resume.empty())
    return Error("--fresh-optimizer is for --resume (a new run starts a fresh optimizer anyway)");
  if (auto s = load_base_config(options); !s) return s;
  for (const auto& [key, value] : flags.settings())
    if (!options.resume.empty() && key == "logdir" && value != options.resume)
      return Error("--resume continues in its own directory; --logdir cannot move it");
  return flags.apply_to(options.config);
}

}  // namespace

std::variant<PpoOptions, int> parse_ppo_options(int argc, char** argv) {
  PpoOptions options;
  CLI::App app(app_description(description), "dvla-ppo");
  use_dvla_help_format(app);
  ConfigFlags flags(app);
  add_flags(app, flags, options);
  app.footer([] { return config_keys_help() + "\n" + wrap_words(exit_status, kHelpWidth); });
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  if (auto s = complete(options, flags); !s)
    return refuse_command_line("dvla-ppo", s.error().message());
  return options;
}

}  // namespace dvla::apps
