#pragma once
// RunBoard: a training run as TensorBoard shows it. Each progress report of the run becomes one
// event of scalars (and the policy lag's histogram) at the run's env steps; each evaluation one
// event at the env steps of the version it evaluated. The step axis is env steps throughout.
#include <cstdint>
#include <optional>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/run/run_status.hpp>
#include <dvla/runtime/tensorboard/event_file.hpp>
#include <dvla/runtime/tensorboard/summary_values.hpp>

namespace dvla::tensorboard {

// Tags: train/*, throughput/*, policy/*, lag/*, learner/*, lanes/*, memory/*, control/*,
// faults/*, groups/<group>/* (several env groups), nodes/<node>/* and cluster/* (several nodes).
Summary status_summary(const RunStatus& s);
// eval/mean_return, eval/mean_length, eval/version, eval/success, eval/success/<family>.
Summary evaluation_summary(const EvaluationSummary& e);
// A GIF file as an image value (TensorBoard's image dashboard plays it); errors name the file.
Expected<ImageValue> gif_image(std::string tag, const std::string& path);

class RunBoard {
 public:
  // A new event file in `logdir`; a run resumed at `resumed_at` env steps starts its file with a
  // session start there (event_file.hpp says why).
  static Expected<RunBoard> open(const std::string& logdir, std::optional<uint64_t> resumed_at);

  // The status's scalars, and its latest evaluation if it is one not written yet, with its
  // video (eval/video, the GIF as an image) when it has one. A video that cannot be read is named
  // in the error after everything else is written.
  Status write(const RunStatus& s);
  // Anything else at `step`: the run's final evaluation, a rollout video.
  Status write(int64_t step, const Summary& summary) { return file_.write(step, summary); }
  const std::string& path() const { return file_.path(); }
  bool failed() const { return file_.failed(); }  // the file took a failed write: it is done

 private:
  explicit RunBoard(EventFileWriter file) : file_(std::move(file)) {}
  EventFileWriter file_;
  uint64_t evaluations_written_ = 0;
};

}  // namespace dvla::tensorboard
