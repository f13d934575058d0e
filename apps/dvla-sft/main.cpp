// dvla-sft: demonstrations and supervised fine-tuning, the cold start of VLA RL.
//   dvla-sft record --suite lift --per-task 10 --out demos.dvla
//   dvla-sft train --data demos.dvla --out runs/sft
// `train` writes a checkpoint directory that `dvla-ppo --init DIR` starts RL from, and evaluates
// the fitted policy on the suite's fixed evaluation states.
#include <fmt/core.h>

#include <climits>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

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
#include <dvla/runtime/weights/flat_parameters.hpp>
#include "common/command_line.hpp"

namespace {

using namespace dvla;
using nlohmann::json;

const char* usage =
    "dvla-sft: demonstrations and supervised fine-tuning.\n\n"
    "Usage:\n"
    "  dvla-sft record [--suite NAME] [--per-task N] [--seed S] [--image-size N] [--noise X]\n"
    "                  [--all] --out FILE\n"
    "      Records the scripted expert on N training starts of every training task of the\n"
    "      tabletop suite (default mixed, 10 per task, 64x64 images); only successful episodes\n"
    "      unless --all. --noise X: the env executes the expert's action plus Gaussian noise\n"
    "      (standard deviation X, translation and yaw), the file keeps the expert's action;\n"
    "      spoiled episodes are replaced by further starts of their task.\n"
    "      The format is in docs/datasets.md.\n"
    "  dvla-sft train --data FILE --out DIR [--epochs N] [--minibatch N] [--lr X] [--seed S]\n"
    "                 [--image-shift PIXELS]\n"
    "                 [--set KEY=VALUE]... [--json]\n"
    "      Fits the policy (model.* keys; default the small VLA) to the demonstrations, writes\n"
    "      the checkpoint DIR, and evaluates it on eval.episodes (default 20 per training task)\n"
    "      of the suite's fixed evaluation states.\n";

struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::pair<std::string, std::string>> settings;  // --set, in order
  bool all = false, json = false;
};

Expected<Flags> parse(dvla::apps::CommandLine& line, const std::vector<std::string>& known) {
  Flags f;
  while (!line.done()) {
    const std::string flag = line.take();
    if (flag == "--all") {
      f.all = true;
    } else if (flag == "--json") {
      f.json = true;
    } else if (flag == "--set") {
      auto v = line.value_of(flag);
      if (!v) return v.error();
      const auto eq = v->find('=');
      if (eq == std::string::npos) return Error("--set needs key=value, got '" + *v + "'");
      f.settings.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else if (std::find(known.begin(), known.end(), flag) != known.end()) {
      auto v = line.value_of(flag);
      if (!v) return v.error();
      f.values[flag] = *v;
    } else {
      return Error("unknown flag '" + flag + "'");
    }
  }
  return f;
}

// Applies flag values as config keys (each flag is shorthand for one key).
Status apply(Config& config, const Flags& f, const std::map<std::string, std::string>& keys) {
  for (const auto& [flag, key] : keys)
    if (auto v = f.values.find(flag); v != f.values.end())
      if (auto s = set_config_value(config, key, v->second); !s) return s;
  for (const auto& [key, value] : f.settings)
    if (auto s = set_config_value(config, key, value); !s) return s;
  return validate(config);
}

int record(dvla::apps::CommandLine& line) {
  auto f = parse(line, {"--suite", "--per-task", "--seed", "--image-size", "--noise", "--out"});
  if (!f) return fmt::print(stderr, "dvla-sft record: {}\n", f.error().message()), 2;
  Config config;
  config.env.name = "tabletop";
  if (auto s = apply(config, *f,
                     {{"--suite", "tabletop.suite"},
                      {"--seed", "seed"},
                      {"--image-size", "tabletop.image_size"}});
      !s)
    return fmt::print(stderr, "dvla-sft record: {}\n", s.error().message()), 2;
  if (!f->values.count("--out"))
    return fmt::print(stderr, "dvla-sft record: --out FILE is required\n"), 2;
  RecordingOptions options;
  options.seed = config.run.seed;
  options.successes_only = !f->all;
  try {
    if (f->values.count("--per-task")) options.per_task = std::stoi(f->values["--per-task"]);
    if (f->values.count("--noise")) options.action_noise = std::stod(f->values["--noise"]);
  } catch (const std::exception&) {
    return fmt::print(stderr, "dvla-sft record: --per-task and --noise need numbers\n"), 2;
  }
  if (options.per_task < 1)
    return fmt::print(stderr, "dvla-sft record: --per-task needs a positive number\n"), 2;
  const auto out = f->values["--out"];
  auto summary = record_scripted_demonstrations(
      config.env.tabletop, options, out, [](const RecordingSummary& s) {
        if (s.episodes % 20 == 0)
          fmt::print("recorded {} episodes ({} successful, {} steps)\n", s.episodes, s.successes,
                     s.steps);
        std::fflush(stdout);
      });
  if (!summary) return fmt::print(stderr, "dvla-sft record: {}\n", summary.error().message()), 1;
  fmt::print("{}: {} episodes of the scripted expert on suite {}, {} successful, {} steps\n", out,
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

// A whole-string number: "3x", "" and "nan" for an integer are refused.
template <class Number>
Expected<Number> number_of(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    Number n;
    if constexpr (std::is_integral_v<Number>)
      n = static_cast<Number>(std::stoll(text, &used));
    else
      n = static_cast<Number>(std::stod(text, &used));
    if (used == text.size()) return n;
  } catch (const std::exception&) {
  }
  return Error(flag + " needs a number, not '" + text + "'");
}

// dvla-sft train's training flags, checked (SftConfig's bounds).
Expected<SftConfig> sft_options(Flags& f) {
  SftConfig sft;
  const std::pair<const char*, int*> integers[] = {{"--epochs", &sft.epochs},
                                                   {"--minibatch", &sft.minibatch_size},
                                                   {"--image-shift", &sft.image_shift}};
  for (const auto& [flag, target] : integers) {
    if (!f.values.count(flag)) continue;
    auto n = number_of<long long>(flag, f.values[flag]);
    if (!n) return n.error();
    if (*n < INT_MIN || *n > INT_MAX) return Error(std::string(flag) + " is out of range");
    *target = static_cast<int>(*n);
  }
  if (f.values.count("--lr")) {
    auto lr = number_of<double>("--lr", f.values["--lr"]);
    if (!lr) return lr.error();
    sft.learning_rate = *lr;
  }
  if (auto valid = check(sft); !valid) return valid.error();
  return sft;
}

int train(dvla::apps::CommandLine& line) {
  auto f = parse(line,
                 {"--data", "--out", "--epochs", "--minibatch", "--lr", "--seed", "--image-shift"});
  if (!f) return fmt::print(stderr, "dvla-sft train: {}\n", f.error().message()), 2;
  if (!f->values.count("--data") || !f->values.count("--out"))
    return fmt::print(stderr, "dvla-sft train: --data FILE and --out DIR are required\n"), 2;
  // The flags first: a bad one is refused before the dataset (maybe GBs) is read.
  auto sft = sft_options(*f);
  if (!sft) return fmt::print(stderr, "dvla-sft train: {}\n", sft.error().message()), 2;
  auto data = read_demonstrations(f->values["--data"]);
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
  if (auto s = apply(config, *f, {{"--seed", "seed"}}); !s)
    return fmt::print(stderr, "dvla-sft train: {}\n", s.error().message()), 2;
  const auto spec = envs::spec_of(config.env);
  sft->seed = config.run.seed;
  auto policy = make_policy(config.model, spec, config.run.seed);
  if (!policy) return fmt::print(stderr, "dvla-sft train: {}\n", policy.error().message()), 2;
  FlatParameters parameters(**policy);
  fmt::print("dvla-sft train: {} demonstrations of suite {}, policy {} ({} parameters)\n",
             data->episodes.size(), data->header.suite, dvla::to_text(config.model.policy),
             parameters.size());
  auto report = fit_demonstrations(**policy, spec, *data, *sft, [&](int epoch, double loss) {
    if (epoch % 5 == 0 || epoch + 1 == sft->epochs)
      fmt::print("epoch {:>3}: loss {:.4f}\n", epoch, loss);
    std::fflush(stdout);
  });
  if (!report) return fmt::print(stderr, "dvla-sft train: {}\n", report.error().message()), 2;
  const auto weights = parameters.to_frame(0);
  const auto parts = default_graph_parts(config);
  // On the threads RL's evaluator uses, so `dvla-ppo --eval` of this checkpoint gives this figure.
  use_graph_threads(config.graph);
  auto eval = evaluate_weights(parts, config, weights);
  if (!eval) return fmt::print(stderr, "dvla-sft train: {}\n", eval.error().message()), 1;
  print_evaluation(*eval);
  CheckpointState state;
  state.eval_success = eval->success_rate;
  state.eval_mean_return = eval->mean_return;
  const auto out = f->values["--out"];
  if (auto s = save_checkpoint(out, config, weights, state); !s)
    return fmt::print(stderr, "dvla-sft train: {}\n", s.error().message()), 1;
  fmt::print("checkpoint: {} (start RL from it with dvla-ppo --init {})\n", out, out);
  if (f->json) {
    json j = evaluation_json(*eval);
    j["samples"] = report->samples;
    j["episodes"] = report->episodes;
    j["final_loss"] = report->epoch_loss.back();
    j["checkpoint"] = out;
    fmt::print("{}\n", j.dump());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  dvla::apps::CommandLine line(argc, argv);
  const std::string command = line.take();
  try {
    if (command == "record") return record(line);
    if (command == "train") return train(line);
    if (command == "--help" || command == "-h") return fmt::print("{}", usage), 0;
    fmt::print(stderr, "dvla-sft: {}\n{}",
               command.empty() ? "record or train?" : "unknown command '" + command + "'", usage);
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-sft: {}\n", e.what());
    return 1;
  }
}
