// dvla-sft: demonstrations and supervised fine-tuning, the cold start of VLA RL.
//   dvla-sft record --suite lift --per-task 10 --out demos.dvla
//   dvla-sft train --data demos.dvla --out runs/sft
// `train` writes a checkpoint directory that `dvla-ppo --init DIR` starts RL from, and evaluates
// the fitted policy on the suite's fixed evaluation states.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include <dvla/envs/env_config.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/datasets/demonstration_recorder.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/learners/behaviour_cloning.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/policies/policy_factory.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>
#include "common/command_line.hpp"
#include "common/config_flags.hpp"
#include "common/evaluation_meter.hpp"

namespace {

using namespace dvla;
using nlohmann::json;

// dvla-sft record's flags (besides the config keys it takes: --suite, --seed, --image-size,
// --set).
struct RecordFlags {
  RecordingOptions options;
  std::string out;
  bool all = false;
};

void add_record_flags(CLI::App& command, apps::ConfigFlags& flags, RecordFlags& f) {
  flags.add_key_flag("--suite", "tabletop.suite", "NAME");
  command.add_option("--per-task", f.options.per_task, "episodes of every training task")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  flags.add_key_flag("--seed", "seed", "S");
  flags.add_key_flag("--image-size", "tabletop.image_size", "N");
  command
      .add_option("--noise", f.options.action_noise,
                  apps::flag_help("the env executes the expert's action plus Gaussian noise of "
                                  "this standard deviation (translation and yaw); the file keeps "
                                  "the expert's action; spoiled episodes are replaced by further "
                                  "starts of their task"))
      ->type_name("X")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  flags.add_set_flag(
      "a config key (tabletop.* chooses the cameras and physics the demonstrations see, e.g. "
      "tabletop.wrist_camera=false)");
  command.add_flag("--all", f.all, "write failed episodes too (else only successful ones)");
  command.add_option("--out", f.out, "the dataset file (docs/datasets.md)")
      ->type_name("FILE")
      ->required();
}

int record(const RecordFlags& f, const apps::ConfigFlags& flags) {
  Config config;
  config.env.name = "tabletop";
  if (auto s = flags.apply_to(config); !s)
    return apps::refuse_command_line("dvla-sft", s.error().message());
  auto tasks = envs::tabletop::suite(config.env.tabletop.suite);
  if (!tasks) return apps::refuse_command_line("dvla-sft", tasks.error().message());
  RecordingOptions options = f.options;
  options.seed = config.run.seed;
  options.successes_only = !f.all;
  ProgressMeter meter({"recorded", "episodes",
                       static_cast<uint64_t>(options.per_task) * tasks->train_tasks.size()});
  auto summary = record_scripted_demonstrations(
      config.env.tabletop, options, f.out, [&](const RecordingSummary& s) {
        meter.update(static_cast<uint64_t>(f.all ? s.episodes : s.successes),
                     fmt::format("{} played, {} steps", s.episodes, s.steps));
      });
  meter.finish();
  if (!summary) return fmt::print(stderr, "dvla-sft record: {}\n", summary.error().message()), 1;
  fmt::print("{}: {} episodes of the scripted expert on suite {}, {} successful, {} steps\n", f.out,
             summary->episodes, config.env.tabletop.suite, summary->successes, summary->steps);
  return 0;
}

json evaluation_json(const EvaluationResult& e) {
  json j{{"eval_success", e.success_rate},
         {"eval_mean_return", e.mean_return},
         {"eval_episodes", e.episodes},
         {"eval_mean_length", e.mean_length}};
  for (const auto& [name, c] : e.per_family) j["eval_success_family"][name] = c.rate();
  for (const auto& [name, c] : e.per_task) j["eval_success_task"][name] = c.rate();
  return j;
}

void print_evaluation(const EvaluationResult& e) {
  fmt::print("evaluation: success {:.1f}% over {} episodes (mean length {:.1f})\n",
             100 * e.success_rate, e.episodes, e.mean_length);
  for (const auto& [name, c] : e.per_family)
    fmt::print("  {:<11} {:5.1f}% ({}/{})\n", name, 100 * c.rate(), c.successes, c.episodes);
}

// dvla-sft train's flags (besides --seed and --set KEY=VALUE).
struct TrainFlags {
  SftConfig sft;
  std::string data, out;
  bool json = false;
};

void add_train_flags(CLI::App& command, apps::ConfigFlags& flags, TrainFlags& f) {
  command.add_option("--data", f.data, "demonstrations (dvla-sft record's file)")
      ->type_name("FILE")
      ->required();
  command.add_option("--out", f.out, "the checkpoint directory to write")
      ->type_name("DIR")
      ->required();
  // SftConfig's own check() says what is out of bounds, before the dataset is read.
  command.add_option("--epochs", f.sft.epochs, "passes over the demonstrations")
      ->type_name("N")
      ->capture_default_str();
  command.add_option("--minibatch", f.sft.minibatch_size, "samples per gradient step")
      ->type_name("N")
      ->capture_default_str();
  command.add_option("--lr", f.sft.learning_rate, "Adam's learning rate")
      ->type_name("X")
      ->capture_default_str();
  command
      .add_option("--image-shift", f.sft.image_shift,
                  "random shifts of the images by up to this many pixels (0: none)")
      ->type_name("PIXELS")
      ->capture_default_str();
  flags.add_key_flag("--seed", "seed", "S");
  flags.add_set_flag(
      "a config key (model.* chooses the policy, default the small VLA; eval.episodes the "
      "evaluation's episodes, default 20 per training task)");
  command.add_flag("--json", f.json,
                   "print the figures as one JSON object on the last stdout line");
}

int train(TrainFlags& f, const apps::ConfigFlags& flags) {
  // The flags first: a bad one is refused before the dataset (maybe GBs) is read.
  if (auto valid = check(f.sft); !valid)
    return apps::refuse_command_line("dvla-sft", valid.error().message());
  auto data = read_demonstrations(f.data);
  if (!data) return fmt::print(stderr, "dvla-sft train: {}\n", data.error().message()), 2;
  // The policy sees what the demonstrations saw.
  Config config;
  config.env.name = data->header.env;
  config.env.tabletop.suite = data->header.suite;
  config.env.tabletop.image_size = static_cast<int>(data->header.image_size);
  config.env.tabletop.front_camera = data->header.front_camera;
  config.env.tabletop.wrist_camera = data->header.wrist_camera;
  // Evaluate 20 episodes per training task unless told otherwise.
  auto tasks = envs::tabletop::suite(config.env.tabletop.suite);
  if (!tasks) return fmt::print(stderr, "dvla-sft train: {}\n", tasks.error().message()), 2;
  config.run.eval_episodes = 20 * static_cast<int>(tasks->train_tasks.size());
  if (auto s = flags.apply_to(config); !s)
    return apps::refuse_command_line("dvla-sft", s.error().message());
  const auto spec = envs::spec_of(config.env);
  f.sft.seed = config.run.seed;
  auto policy = make_policy(config.model, spec, config.run.seed);
  if (!policy) return fmt::print(stderr, "dvla-sft train: {}\n", policy.error().message()), 2;
  FlatParameters parameters(**policy);
  fmt::print("dvla-sft train: {} demonstrations of suite {}, policy {} ({} parameters)\n",
             data->episodes.size(), data->header.suite, dvla::to_text(config.model.policy),
             parameters.size());
  ProgressMeter epochs({"trained", "epochs", static_cast<uint64_t>(f.sft.epochs)});
  auto report = fit_demonstrations(**policy, spec, *data, f.sft, [&](int epoch, double loss) {
    epochs.update(static_cast<uint64_t>(epoch + 1), fmt::format("loss {:.4f}", loss));
  });
  epochs.finish();
  if (!report) return fmt::print(stderr, "dvla-sft train: {}\n", report.error().message()), 2;
  const auto weights = parameters.to_frame(0);
  const auto parts = default_graph_parts(config);
  // On the threads RL's evaluator uses, so `dvla-ppo --eval` of this checkpoint gives this figure.
  use_graph_threads(config.graph);
  apps::EvaluationMeter meter;
  auto eval = evaluate_weights(parts, config, weights, {meter.hook()});
  meter.finish();
  if (!eval) return fmt::print(stderr, "dvla-sft train: {}\n", eval.error().message()), 1;
  print_evaluation(*eval);
  CheckpointState state;
  state.eval_success = eval->success_rate;
  state.eval_mean_return = eval->mean_return;
  if (auto s = save_checkpoint(f.out, config, weights, state); !s)
    return fmt::print(stderr, "dvla-sft train: {}\n", s.error().message()), 1;
  fmt::print("checkpoint: {} (start RL from it with dvla-ppo --init {})\n", f.out, f.out);
  if (f.json) {
    json j = evaluation_json(*eval);
    j["samples"] = report->samples;
    j["episodes"] = report->episodes;
    j["final_loss"] = report->epoch_loss.back();
    j["checkpoint"] = f.out;
    fmt::print("{}\n", j.dump());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(apps::app_description("dvla-sft: demonstrations and supervised fine-tuning, the "
                                     "cold start of VLA RL."),
               "dvla-sft");
  apps::use_dvla_help_format(app);
  app.require_subcommand(1);
  auto* record_command = app.add_subcommand("record", "record the scripted expert's episodes");
  record_command->footer(apps::wrap_words(
      "Records the scripted expert on N training starts of every training task of the tabletop "
      "suite (64x64 images unless --image-size).",
      apps::kHelpWidth));
  apps::ConfigFlags record_keys(*record_command);
  RecordFlags record_flags;
  add_record_flags(*record_command, record_keys, record_flags);
  auto* train_command = app.add_subcommand("train", "fit a policy to demonstrations");
  train_command->footer([] {
    return apps::wrap_words(
               "Fits the policy to the demonstrations, writes the checkpoint DIR (dvla-ppo "
               "--init DIR starts RL from it) and evaluates it on the suite's fixed evaluation "
               "states.",
               apps::kHelpWidth) +
           "\n\n" + apps::config_keys_help();
  });
  apps::ConfigFlags train_keys(*train_command);
  TrainFlags train_flags;
  add_train_flags(*train_command, train_keys, train_flags);
  if (auto status = apps::parse_command_line(app, argc, argv)) return *status;
  try {
    return record_command->parsed() ? record(record_flags, record_keys)
                                    : train(train_flags, train_keys);
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-sft: {}\n", e.what());
    return 1;
  }
}
