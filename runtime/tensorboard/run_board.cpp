#include <dvla/runtime/tensorboard/run_board.hpp>

#include <dvla/runtime/storage/file_bytes.hpp>
#include <dvla/runtime/video/gif_file.hpp>

namespace dvla::tensorboard {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

void put(Summary& out, std::string tag, double value) {
  out.scalars.push_back({std::move(tag), value});
}

void add_learner(Summary& out, const msg::LearnerStats& l) {
  put(out, "learner/samples", static_cast<double>(l.samples));
  put(out, "learner/policy_loss", l.policy_loss);
  put(out, "learner/value_loss", l.value_loss);
  put(out, "learner/entropy", l.entropy);
  put(out, "learner/approx_kl", l.approx_kl);
  put(out, "learner/clip_fraction", l.clip_fraction);
  put(out, "learner/reference_kl", l.reference_kl);
  put(out, "learner/learning_rate", l.learning_rate);
  put(out, "learner/importance_weight_max", l.importance_weight_max);
  put(out, "learner/importance_weight_ess", l.importance_weight_ess);
}

void add_lanes(Summary& out, const LaneReport& lanes) {
  if (lanes.wall_s <= 0) return;
  for (auto lane : all_lanes) {
    const auto name = std::string("lanes/") + lane_name(lane);
    put(out, name + "_busy", lanes[lane].busy_fraction);
    put(out, name + "_cpu_seconds", lanes[lane].cpu_s);
  }
}

void add_memory(Summary& out, const std::vector<PoolSummary>& pools) {
  for (const auto& p : pools) {
    const auto name = "memory/" + p.name;
    put(out, name + "_in_use_mib", static_cast<double>(p.in_use) / MiB);
    put(out, name + "_peak_in_use_mib", static_cast<double>(p.peak_in_use) / MiB);
    put(out, name + "_reserved_mib", static_cast<double>(p.reserved) / MiB);
    put(out, name + "_failed_requests", static_cast<double>(p.failed_requests));
  }
}

void add_groups(Summary& out, const std::vector<GroupStatus>& groups) {
  if (groups.size() < 2) return;  // one group: the train/* tags say it all
  for (const auto& g : groups) {
    const auto name = "groups/" + g.name;
    put(out, name + "/env_steps", static_cast<double>(g.env_steps));
    put(out, name + "/mean_return", g.mean_return);
    put(out, name + "/success", g.success_rate);
  }
}

void add_nodes(Summary& out, const RunStatus& s) {
  if (s.nodes.empty()) return;
  put(out, "cluster/version_skew", static_cast<double>(s.version_skew));
  for (const auto& n : s.nodes) {
    const auto name = "nodes/" + n.name;
    put(out, name + "/env_steps_per_second", n.steps_per_second);
    put(out, name + "/policy_lag_mean", n.policy_lag_mean);
    put(out, name + "/weights_version", static_cast<double>(n.weights_version));
    put(out, name + "/segment_mib", static_cast<double>(n.segment_bytes) / MiB);
    put(out, name + "/weight_mib", static_cast<double>(n.weight_bytes) / MiB);
    put(out, name + "/control_rtt_us", n.control_rtt_us);
    put(out, name + "/running", n.state == "running" ? 1.0 : 0.0);
  }
}

}  // namespace

Summary status_summary(const RunStatus& s) {
  Summary out;
  put(out, "train/mean_return", s.mean_return);
  put(out, "train/success", s.success_rate);
  put(out, "train/episodes", static_cast<double>(s.episodes));
  put(out, "throughput/env_steps_per_second", s.steps_per_second);
  put(out, "throughput/wall_seconds", s.wall_seconds);
  put(out, "policy/version", static_cast<double>(s.version));
  put(out, "lag/mean", s.policy_lag_mean);
  put(out, "lag/dropped_stale_env_steps", static_cast<double>(s.dropped_stale));
  put(out, "lag/samples_trained", static_cast<double>(s.samples_trained));
  add_learner(out, s.learner);
  add_lanes(out, s.lanes);
  add_memory(out, s.memory);
  if (s.control.rounds > 0) {
    put(out, "control/rtt_mean_us", s.control.mean_us);
    put(out, "control/rtt_max_us", s.control.max_us);
    put(out, "control/rtt_last_us", s.control.last_us);
  }
  put(out, "faults/restarts", static_cast<double>(s.restarts));
  put(out, "faults/rejected_messages", static_cast<double>(s.rejected_messages));
  put(out, "faults/checkpoint_failures", static_cast<double>(s.checkpoint_failures));
  put(out, "faults/segments_dropped", static_cast<double>(s.segments_dropped));
  add_groups(out, s.groups);
  add_nodes(out, s);
  if (!s.policy_lag_samples.empty())
    out.histograms.push_back(integer_histogram("lag/distribution", s.policy_lag_samples));
  return out;
}

Summary evaluation_summary(const EvaluationSummary& e) {
  Summary out;
  put(out, "eval/mean_return", e.mean_return);
  put(out, "eval/mean_length", e.mean_length);
  put(out, "eval/version", static_cast<double>(e.version));
  if (e.success_per_family.empty()) return out;  // an env without tasks: success means nothing
  put(out, "eval/success", e.success_rate);
  for (const auto& [family, rate] : e.success_per_family) put(out, "eval/success/" + family, rate);
  return out;
}

Expected<RunBoard> RunBoard::open(const std::string& logdir, std::optional<uint64_t> resumed_at) {
  auto file = EventFileWriter::create(logdir);
  if (!file) return file.error();
  if (resumed_at)
    if (auto started = file->start_session(static_cast<int64_t>(*resumed_at)); !started)
      return started.error();
  return RunBoard(std::move(*file));
}

Expected<ImageValue> gif_image(std::string tag, const std::string& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  auto frames = decode_gif(*bytes);
  if (!frames) return frames.error().within("'" + path + "'");
  if (frames->empty()) return Error("'" + path + "' holds no frames");
  return ImageValue{std::move(tag), frames->front().height, frames->front().width, 3,
                    std::move(*bytes)};
}

Status RunBoard::write(const RunStatus& s) {
  Status video_read;
  if (s.evaluations > evaluations_written_ && s.last_evaluation.episodes > 0) {
    evaluations_written_ = s.evaluations;
    const auto& e = s.last_evaluation;
    auto summary = evaluation_summary(e);
    if (!e.video.empty()) {
      if (auto image = gif_image("eval/video", e.video))
        summary.images.push_back(std::move(*image));
      else
        video_read =
            image.error().within("evaluation video of version " + std::to_string(e.version));
    }
    if (auto written = file_.write(static_cast<int64_t>(e.env_steps), summary); !written)
      return written;
  }
  if (auto written = file_.write(static_cast<int64_t>(s.env_steps), status_summary(s)); !written)
    return written;
  return video_read;
}

}  // namespace dvla::tensorboard
