// dvla-ppo: trains through the actor graph, shows progress, evaluates, and summarises; resumes a
// run from its checkpoints, or only evaluates a checkpoint.
#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>
#include <nlohmann/json.hpp>

#include <dvla/actors/graph/training.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/checkpoints/weights_file.hpp>
#include <dvla/runtime/config/cluster_address.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/platform/blas_info.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/tensorboard/run_board.hpp>
#include <dvla/runtime/video/gif_file.hpp>
#include "common/evaluation_meter.hpp"
#include "common/lane_summary.hpp"
#include "common/run_signals.hpp"
#include "dvla-ppo/options.hpp"

namespace {

using dvla::Config;
using dvla::EvaluationResult;
using dvla::RunStatus;
using nlohmann::json;
namespace fs = std::filesystem;

json memory_json(const std::vector<dvla::PoolSummary>& pools) {
  json j = json::object();
  for (const auto& p : pools)
    j[p.name] = {{"budget", p.budget},
                 {"reserved", p.reserved},
                 {"peak_reserved", p.peak_reserved},
                 {"in_use", p.in_use},
                 {"peak_in_use", p.peak_in_use},
                 {"largest_free_block", p.largest_free_block},
                 {"failed_requests", p.failed_requests}};
  return j;
}

json nodes_json(const std::vector<dvla::NodeStatus>& nodes) {
  json j = json::array();
  for (const auto& n : nodes)
    j.push_back({{"id", n.id},
                 {"name", n.name},
                 {"host", n.host},
                 {"state", n.state},
                 {"cores", n.cores},
                 {"gpus", n.gpus},
                 {"samplers", n.samplers},
                 {"group", n.group},
                 {"envs", n.envs},
                 {"replicas", n.replicas},
                 {"env_steps", n.env_steps},
                 {"steps_per_second", n.steps_per_second},
                 {"segments", n.segments},
                 {"segment_bytes", n.segment_bytes},
                 {"policy_lag_mean", n.policy_lag_mean},
                 {"weights_version", n.weights_version},
                 {"weights_from", n.weights_from},
                 {"weight_updates", n.weight_updates},
                 {"weight_bytes", n.weight_bytes},
                 {"control_rtt_us", n.control_rtt_us},
                 {"start_version", n.start_version},
                 {"first_segment_version", n.first_segment_version},
                 {"lost_reason", n.lost_reason},
                 {"refused", n.refused}});
  return j;
}

json placement_json(const dvla::PlacementStatus& p) {
  json threads = json::array();
  for (const auto& t : p.threads)
    threads.push_back(
        {{"actor", t.actor}, {"planned", t.planned}, {"applied", t.applied}, {"error", t.error}});
  json memory = json::array();
  for (const auto& m : p.memory)
    memory.push_back(
        {{"holder", m.holder}, {"planned", m.planned}, {"found", m.found}, {"error", m.error}});
  return {{"topology", p.topology}, {"plan", p.plan}, {"threads", threads}, {"memory", memory}};
}

json status_json(const RunStatus& s) {
  json j = {{"env_steps", s.env_steps},
            {"wall_seconds", s.wall_seconds},
            {"steps_per_second", s.steps_per_second},
            {"episodes", s.episodes},
            {"train_mean_return", s.mean_return},
            {"train_success", s.success_rate},
            {"version", s.version},
            {"policy_lag_mean", s.policy_lag_mean},
            {"policy_lag_distribution", dvla::apps::policy_lag_json(s.policy_lag_samples)},
            {"samples_trained", s.samples_trained},
            {"dropped_stale", s.dropped_stale},
            {"rejected_messages", s.rejected_messages},
            {"refused_strangers", s.refused_strangers},
            {"refused_connections", s.refused_connections},
            {"checkpoint_failures", s.checkpoint_failures},
            {"checkpoint_error", s.checkpoint_error},
            {"restarts", s.restarts},
            {"last_restart", s.last_restart},
            {"evaluations", s.evaluations},
            {"control_rtt_us",
             {{"rounds", s.control.rounds},
              {"last", s.control.last_us},
              {"mean", s.control.mean_us},
              {"max", s.control.max_us}}},
            {"memory_pools", memory_json(s.memory)},
            {"nodes", nodes_json(s.nodes)},
            {"version_skew", s.version_skew},
            {"placement", placement_json(s.placement)},
            {"learner",
             {{"policy_loss", s.learner.policy_loss},
              {"value_loss", s.learner.value_loss},
              {"entropy", s.learner.entropy},
              {"approx_kl", s.learner.approx_kl},
              {"clip_fraction", s.learner.clip_fraction},
              {"reference_kl", s.learner.reference_kl},
              {"samples", s.learner.samples},
              {"learning_rate", s.learner.learning_rate},
              {"importance_weight_max", s.learner.importance_weight_max},
              {"importance_weight_ess", s.learner.importance_weight_ess}}}};
  if (s.evaluations > 0) {
    const auto& e = s.last_evaluation;
    j["last_eval"] = {{"version", e.version},
                      {"env_steps", e.env_steps},
                      {"wall_seconds", e.wall_seconds},
                      {"episodes", e.episodes},
                      {"success", e.success_rate},
                      {"mean_return", e.mean_return},
                      {"mean_length", e.mean_length},
                      {"success_family", e.success_per_family},
                      {"video", e.video}};
  }
  return j;
}

void print_progress(const RunStatus& s) {
  std::string eval;
  if (s.evaluations > 0) {
    const auto& e = s.last_evaluation;
    eval = fmt::format(" | eval v{}: return {:.1f}", e.version, e.mean_return);
    if (!e.success_per_family.empty())
      eval += fmt::format(", success {:.0f}%", 100 * e.success_rate);
  }
  fmt::print(
      "[{:7.1f}s] env steps {:>9} ({:>7.0f}/s) | mean return {:7.1f} over last {} eps | "
      "version {:>4} | lag {:4.2f} | dropped {}{}\n",
      s.wall_seconds, s.env_steps, s.steps_per_second, s.mean_return,
      std::min<uint64_t>(s.episodes, 100), s.version, s.policy_lag_mean, s.dropped_stale, eval);
  for (const auto& n : s.nodes)
    fmt::print(
        "  node {:<16} {:<7} env steps {:>9} ({:>7.0f}/s) | lag {:4.2f} | segments {:.1f} MB "
        "in | weights v{} from {} ({:.1f} MB) | control rtt {:.0f} us\n",
        n.name, n.state, n.env_steps, n.steps_per_second, n.policy_lag_mean, n.segment_bytes / 1e6,
        n.weights_version, n.weights_from.empty() ? "-" : n.weights_from, n.weight_bytes / 1e6,
        n.control_rtt_us);
  if (s.nodes.size() > 1) fmt::print("  version skew across nodes: {}\n", s.version_skew);
  std::fflush(stdout);
}

// Prints each evaluation of the run (periodic, or asked for by SIGUSR1) once, as it arrives.
class EvaluationLines {
 public:
  void print_new(const RunStatus& s) {
    if (s.evaluations == shown_) return;
    shown_ = s.evaluations;
    const auto& e = s.last_evaluation;
    std::string success;
    if (!e.success_per_family.empty()) {
      success = fmt::format(", success {:.1f}%", 100 * e.success_rate);
      for (const auto& [family, rate] : e.success_per_family)
        success += fmt::format(" ({} {:.1f}%)", family, 100 * rate);
    }
    fmt::print(
        "evaluation of version {} (at {} env steps): mean return {:.1f} over {} episodes (mean "
        "length {:.1f}){}\n",
        e.version, e.env_steps, e.mean_return, e.episodes, e.mean_length, success);
    if (!e.video.empty()) fmt::print("  video: {}\n", e.video);
    if (!e.video_error.empty()) fmt::print(stderr, "  no video: {}\n", e.video_error);
    std::fflush(stdout);
  }

 private:
  uint64_t shown_ = 0;
};

// Appends one JSON line per progress report under logdir (a resumed run continues its file).
class ProgressLog {
 public:
  ProgressLog(const std::string& logdir, bool append) {
    if (!logdir.empty())
      out_.open(fs::path(logdir) / "progress.jsonl", append ? std::ios::app : std::ios::trunc);
  }
  // Flushed per row (a killed run keeps every row it wrote); a failed write is said once.
  void write(const RunStatus& s) {
    if (!out_.is_open() || failed_) return;
    out_ << status_json(s).dump() << "\n" << std::flush;
    if (out_) return;
    failed_ = true;
    fmt::print(stderr, "dvla-ppo: writing progress.jsonl failed ({}); the run goes on without it\n",
               std::strerror(errno));
  }

 private:
  std::ofstream out_;
  bool failed_ = false;
};

// The run's TensorBoard event file under logdir (runtime/tensorboard/run_board.hpp); a failure
// is said once and the run goes on without it.
class BoardLog {
 public:
  BoardLog(const std::string& logdir, std::optional<uint64_t> resumed_at) {
    if (logdir.empty()) return;
    auto board = dvla::tensorboard::RunBoard::open(logdir, resumed_at);
    if (board)
      board_.emplace(std::move(*board));
    else
      give_up(board.error());
  }
  void write(const RunStatus& s) {
    if (board_) check(board_->write(s));
  }
  void write(uint64_t step, const dvla::tensorboard::Summary& summary) {
    if (board_) check(board_->write(static_cast<int64_t>(step), summary));
  }

 private:
  // A video that cannot be read is named and the log goes on; a failed write ends it.
  void check(const dvla::Status& written) {
    if (written) return;
    if (board_->failed())
      give_up(written.error());
    else
      fmt::print(stderr, "dvla-ppo: TensorBoard log: {}\n", written.error().message());
  }
  void give_up(const dvla::Error& why) {
    board_.reset();
    fmt::print(stderr, "dvla-ppo: TensorBoard log: {}; the run goes on without it\n",
               why.message());
  }
  std::optional<dvla::tensorboard::RunBoard> board_;
};

// The final evaluation in TensorBoard: final_eval/* (success per family and per task).
// The final evaluation's video as <logdir>/videos/final_v<version>.gif, named on stdout (a failure
// is said, and the run goes on); its path, or empty.
std::string save_final_video(const std::string& logdir, uint64_t version,
                             const std::vector<dvla::RgbImage>& frames) {
  if (frames.empty()) return {};
  constexpr int delay_cs = 10;  // 10 frames a second, as the evaluations' during the run
  const auto dir = fs::path(logdir) / "videos";
  const auto path = (dir / fmt::format("final_v{:06d}.gif", version)).string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  auto written = ec ? dvla::Status(dvla::Error("cannot create '" + dir.string() + "': " +
                                               ec.message()))
                    : dvla::write_gif_file(path, frames, delay_cs);
  if (!written) {
    fmt::print(stderr, "dvla-ppo: the final evaluation's video: {}\n", written.error().message());
    return {};
  }
  fmt::print("video of the final evaluation: {}\n", path);
  return path;
}

// The final evaluation's figures, and its video (if any) as an image TensorBoard plays.
dvla::tensorboard::Summary final_evaluation_summary(const EvaluationResult& eval,
                                                    const std::string& video) {
  dvla::tensorboard::Summary out;
  if (!video.empty()) {
    if (auto image = dvla::tensorboard::gif_image("final_eval/video", video))
      out.images.push_back(std::move(*image));
    else
      fmt::print(stderr, "dvla-ppo: {}\n", image.error().message());
  }
  out.scalars.push_back({"final_eval/mean_return", eval.mean_return});
  out.scalars.push_back({"final_eval/mean_length", eval.mean_length});
  if (eval.per_task.empty()) return out;
  out.scalars.push_back({"final_eval/success", eval.success_rate});
  for (const auto& [family, count] : eval.per_family)
    out.scalars.push_back({"final_eval/success/" + family, count.rate()});
  for (const auto& [task, count] : eval.per_task)
    out.scalars.push_back({"final_eval/task/" + task, count.rate()});
  return out;
}

// Success means something only for envs with tasks (the tabletop suite), not for CartPole.
void print_evaluation(const EvaluationResult& eval) {
  fmt::print(
      "evaluation: mean return {:.1f} over {} episodes (mean length {:.1f}){}\n", eval.mean_return,
      eval.episodes, eval.mean_length,
      eval.per_task.empty() ? "" : fmt::format(", success {:.1f}%", 100 * eval.success_rate));
  for (const auto& [family, count] : eval.per_family)
    fmt::print("  {:<11} {:5.1f}% ({}/{})\n", family, 100 * count.rate(), count.successes,
               count.episodes);
}

void add_evaluation(json& summary, const EvaluationResult& eval) {
  summary["eval_mean_return"] = eval.mean_return;
  summary["eval_episodes"] = eval.episodes;
  summary["eval_mean_length"] = eval.mean_length;
  if (eval.per_task.empty()) return;
  summary["eval_success"] = eval.success_rate;
  for (const auto& [name, c] : eval.per_family) summary["eval_success_family"][name] = c.rate();
  for (const auto& [name, c] : eval.per_task) summary["eval_success_task"][name] = c.rate();
}

std::string transport_text(const dvla::ClusterConfig& cluster) {
  if (cluster.tls()) return "tls";
  const auto address = dvla::parse_cluster_address(cluster.listen);
  return address && dvla::is_loopback_host(address->host) ? "plain" : "insecure";
}

void add_run(json& summary, const Config& config) {
  summary["env"] = config.env.name;
  summary["mode"] = dvla::to_text(config.run.mode);
  summary["algo"] = config.run.algo;
  summary["seed"] = config.run.seed;
  summary["blas"] = dvla::loaded_blas();
  // A multi-node run's transport: "tls", "plain" on loopback, "insecure" where cluster.insecure
  // let it run in plain TCP beyond loopback.
  if (!config.cluster.listen.empty()) summary["transport"] = transport_text(config.cluster);
}

int fail(const std::string& what) {
  fmt::print(stderr, "dvla-ppo: {}\n", what);
  return 1;
}

// --eval: evaluates a checkpoint's weights with the config it was trained with.
int evaluate_only(const dvla::apps::PpoOptions& options) {
  auto checkpoint = dvla::load_checkpoint(options.eval);
  if (!checkpoint) return fail(checkpoint.error().message());
  Config config = options.config;
  config.model.init.clear();  // the checkpoint's weights replace whatever the run started from
  // The run's evaluator's thread counts, so that the run's own evaluation is reproduced.
  const int threads = dvla::use_graph_threads(config.graph);
  fmt::print("dvla-ppo: evaluating {} (version {}) on {} episodes of {}, {} LibTorch thread{}\n",
             options.eval, checkpoint->state.version, config.run.eval_episodes, config.env.name,
             threads, threads == 1 ? "" : "s");
  dvla::apps::EvaluationMeter meter;
  auto eval = dvla::evaluate_weights(dvla::default_graph_parts(config), config,
                                     checkpoint->weights, {meter.hook()});
  meter.finish();
  if (!eval) return fail(eval.error().message());
  print_evaluation(*eval);
  json summary = {{"checkpoint", options.eval}, {"version", checkpoint->state.version}};
  add_evaluation(summary, *eval);
  add_run(summary, config);
  if (options.json) fmt::print("{}\n", summary.dump());
  return 0;
}

// --resume: the run's newest whole checkpoint (a damaged newer one is skipped, named), which must
// leave env steps to train and hold the optimizer's state unless --fresh-optimizer.
dvla::Expected<std::shared_ptr<const dvla::Checkpoint>> resume_point(
    const std::string& logdir, const Config& config, bool fresh_optimizer) {
  auto checkpoint = dvla::CheckpointStore::latest_valid(
      logdir, [](const std::string& dir, const dvla::Error& why) {
        fmt::print(stderr, "dvla-ppo: --resume skips {}: {}\n", dir, why.message());
      });
  if (!checkpoint) return checkpoint.error();
  const auto& dir = checkpoint->dir;
  if (checkpoint->state.env_steps >= config.run.max_env_steps)
    return dvla::Error("'" + dir + "' already has " + std::to_string(checkpoint->state.env_steps) +
                       " env steps of max_env_steps " + std::to_string(config.run.max_env_steps) +
                       "; raise --max-env-steps to train on");
  if (checkpoint->optimizer_path.empty()) {
    if (!fresh_optimizer)
      return dvla::Error("'" + dir +
                         "' has no optimizer state (optimizer.pt); --fresh-optimizer resumes "
                         "with a fresh one");
    fmt::print(stderr, "dvla-ppo: {} has no optimizer state: a fresh optimizer starts\n", dir);
  }
  fmt::print("dvla-ppo: resuming from {} (version {}, {} env steps)\n", dir,
             checkpoint->state.version, checkpoint->state.env_steps);
  return std::make_shared<const dvla::Checkpoint>(std::move(*checkpoint));
}

// "SIGINT" or "SIGTERM" for a stop asked by a signal, else what the training reported.
std::string stop_reason(const dvla::TrainingResult& result, const dvla::apps::RunSignals& signals) {
  const auto signal = signals.stop_signal_name();
  return result.stopped_by == "stop request" && !signal.empty() ? signal : result.stopped_by;
}

int train(const dvla::apps::PpoOptions& options) {
  dvla::apps::RunSignals signals("dvla-ppo");
  const Config& config = options.config;
  const auto& logdir = config.run.logdir;
  std::shared_ptr<const dvla::Checkpoint> resume;
  if (!options.resume.empty()) {
    auto point = resume_point(options.resume, config, options.fresh_optimizer);
    if (!point) return fail(point.error().message());
    resume = *point;
  }
  if (!logdir.empty()) {
    std::error_code ec;
    fs::create_directories(logdir, ec);
    if (ec) return fail("cannot create logdir '" + logdir + "': " + ec.message());
    std::ofstream(fs::path(logdir) / "config.txt") << dvla::dump_config(config);
  }
  if (config.cluster.listen.empty())
    fmt::print(
        "dvla-ppo: {} {} on {}, {} samplers x {} envs, {} inference, 1 trainer, seed {}, "
        "{} env steps\nBLAS: {}\n",
        dvla::to_text(config.run.mode), config.run.algo, config.env.name, config.graph.samplers,
        config.graph.envs_per_sampler, config.graph.inference_replicas, config.run.seed,
        config.run.max_env_steps, dvla::loaded_blas());
  else
    fmt::print(
        "dvla-ppo: coordinator of {} {} on {} at {}: waiting for {} node(s) (samplers x {} envs "
        "each), {} local sampler(s), 1 trainer, seed {}, {} env steps\nBLAS: {}\n",
        dvla::to_text(config.run.mode), config.run.algo, config.env.name, config.cluster.listen,
        config.cluster.nodes, config.graph.envs_per_sampler, config.cluster.local_samplers,
        config.run.seed, config.run.max_env_steps, dvla::loaded_blas());
  std::fflush(stdout);

  ProgressLog log(logdir, resume != nullptr);
  BoardLog board(logdir, resume ? std::optional<uint64_t>(resume->state.env_steps) : std::nullopt);
  EvaluationLines evaluations;
  // The default graph: one env group of the configured env, one inference pool, the built-in
  // policy and learners (actors/graph/graph.hpp). A program of your own declares its own.
  const auto parts = dvla::default_graph_parts(config);
  auto result = dvla::train(
      config, dvla::graph_of(config, parts),
      [&](const RunStatus& s) {
        print_progress(s);
        evaluations.print_new(s);
        log.write(s);
        board.write(s);
      },
      resume, &signals.requests());
  if (!result) return fail("training failed: " + result.error().message());
  if (!logdir.empty())
    if (auto saved =
            dvla::save_weights((fs::path(logdir) / "final.weights").string(), result->weights);
        !saved)
      return fail(saved.error().message());
  dvla::apps::EvaluationMeter meter;
  std::vector<dvla::RgbImage> video;
  const bool with_video = !logdir.empty() && config.run.eval_video_every > 0;
  auto eval = dvla::evaluate_weights(
      parts, config, result->weights,
      {meter.hook(), with_video ? static_cast<size_t>(config.run.eval_video_episodes) : 0,
       &video});
  meter.finish();
  if (!eval) return fail(eval.error().message());
  board.write(result->status.env_steps,
              final_evaluation_summary(*eval, save_final_video(logdir, result->status.version,
                                                               video)));
  if (!result->checkpoint.empty()) {
    dvla::CheckpointStore store(logdir, config.run.checkpoint_keep);
    if (auto s = store.record_evaluation(result->checkpoint, eval->success_rate, eval->mean_return);
        !s)
      return fail(s.error().message());
  }
  const auto& s = result->status;
  const std::string stopped_by = stop_reason(*result, signals);
  fmt::print(
      "done: {} env steps in {:.1f}s ({:.0f}/s), version {}, policy lag {:.2f}, {} dropped "
      "as stale{}\n",
      s.env_steps, s.wall_seconds, s.steps_per_second, s.version, s.policy_lag_mean,
      s.dropped_stale, stopped_by.empty() ? "" : " (stopped early: " + stopped_by + ")");
  fmt::print("{} | {}\n{}\n", dvla::apps::lanes_line(result->lanes),
             dvla::apps::cpu_line(result->lanes), dvla::apps::policy_lag_line(s.policy_lag_samples));
  for (const auto& p : s.memory)
    fmt::print(
        "memory pool {}: peak {:.2f} MiB in use ({:.2f} MiB reserved) of {:.0f} MiB, {} failed\n",
        p.name, p.peak_in_use / 1048576.0, p.peak_reserved / 1048576.0, p.budget / 1048576.0,
        p.failed_requests);
  if (s.control.rounds > 0)
    fmt::print(
        "control round trips: {} (every actor acknowledged), mean {:.0f} us, max {:.0f} us\n",
        s.control.rounds, s.control.mean_us, s.control.max_us);
  for (const auto& n : s.nodes)
    fmt::print(
        "node {} ({}, {}): {} env steps ({:.0f}/s), {} segments ({:.1f} MB), lag {:.2f}, weights "
        "v{} from {} ({} updates, {:.1f} MB), control rtt {:.0f} us{}\n",
        n.name, n.host.empty() ? "this process" : n.host, n.state, n.env_steps, n.steps_per_second,
        n.segments, n.segment_bytes / 1e6, n.policy_lag_mean, n.weights_version,
        n.weights_from.empty() ? "-" : n.weights_from, n.weight_updates, n.weight_bytes / 1e6,
        n.control_rtt_us, n.lost_reason.empty() ? "" : "; lost: " + n.lost_reason);
  if (s.nodes.size() > 1) fmt::print("version skew across nodes at the end: {}\n", s.version_skew);
  if (!config.run.trace.empty()) fmt::print("trace: {}\n", config.run.trace);
  print_evaluation(*eval);
  if (!result->checkpoint.empty()) fmt::print("checkpoint: {}\n", result->checkpoint);
  if (s.checkpoint_failures > 0)
    fmt::print("checkpoint saves that failed: {} (the last: {}){}\n", s.checkpoint_failures,
               s.checkpoint_error, result->checkpoint.empty() ? "; the final one too" : "");
  if (s.restarts > 0)
    fmt::print("actors restarted after a failure: {} (the last: {})\n", s.restarts,
               s.last_restart);
  json summary = status_json(s);
  summary["lane_busy"] = dvla::apps::lane_busy_json(result->lanes);
  summary["lanes"] = dvla::apps::lanes_json(result->lanes);
  summary["process_cpu_seconds"] = result->lanes.process_cpu_s;
  add_evaluation(summary, *eval);
  add_run(summary, config);
  if (!result->checkpoint.empty()) summary["checkpoint"] = result->checkpoint;
  if (!stopped_by.empty()) summary["stopped_by"] = stopped_by;
  if (!logdir.empty()) std::ofstream(fs::path(logdir) / "summary.json") << summary.dump(2) << "\n";
  if (options.json) fmt::print("{}\n", summary.dump());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = dvla::apps::parse_ppo_options(argc, argv);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const auto* options = std::get_if<dvla::apps::PpoOptions>(&parsed);
  try {
    return options->eval.empty() ? train(*options) : evaluate_only(*options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-ppo: {}\n", e.what());
    return 1;
  }
}
