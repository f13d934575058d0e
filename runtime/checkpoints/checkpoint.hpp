#pragma once
// Checkpoints: everything a run needs to continue or to be evaluated, in one directory written
// atomically (to a temporary sibling, then renamed into place):
//   config.txt      the run's settings
//   weights         the policy's WeightUpdate frame
//   optimizer.pt    the optimizer's state (LibTorch archive), when there is one
//   state.json      version, counters, evaluation result, the learner's RNG state, the learner
//                   algorithm's running state (PPO's reward scale)
//   manifest.json   each file above with its size and checksum, written last (storage/manifest)
// Saving checks the free space first, flushes every file to the device and never leaves a half
// directory behind (the temporary is removed on failure; the error names the file and the reason,
// ENOSPC included). Loading verifies the manifest before reading anything and names the damaged
// file. CheckpointStore keeps the last N of a run and its best, and finds the newest whole one.
#include <functional>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/core/hex.hpp>  // the RNG state is hex in state.json
#include <dvla/messages/frame.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

struct CheckpointState {
  uint64_t version = 0;
  uint64_t env_steps = 0;
  uint64_t samples_trained = 0;
  uint64_t episodes = 0;
  double eval_success = -1;  // < 0: not evaluated
  double eval_mean_return = 0;
  std::string rng_state;  // the learner's generator, hex
  double learning_rate_factor = 1;  // ppo.adaptive_kl's multiplier (1: none)
  // What the learner algorithm carries between batches (LearnerAlgorithm::checkpoint_state), a
  // JSON object's text; empty: nothing (and checkpoints from before it existed).
  std::string algorithm_state;
};

struct Checkpoint {
  std::string dir;  // where it was loaded from
  Config config;
  msg::WeightsFrame weights;
  CheckpointState state;
  std::string optimizer_path;  // empty: no optimizer state
};

// The optimizer's state as bytes (LibTorch archive, learners/optimizer_state.hpp); none: the
// checkpoint has no optimizer.pt.
using OptimizerState = std::function<Expected<std::string>()>;

Status save_checkpoint(const std::string& dir, const Config& config,
                       const msg::WeightsFrame& weights, const CheckpointState& state,
                       const OptimizerState& optimizer_state = {});
// Verifies and reads a checkpoint directory; errors name the file that is missing or wrong.
Expected<Checkpoint> load_checkpoint(const std::string& dir);
// A checkpoint directory itself, or a run directory's best checkpoint (its latest when none was
// evaluated): what `dvla-ppo --eval` and `--init` accept.
Expected<std::string> resolve_checkpoint(const std::string& path);

// A run's checkpoints: <logdir>/checkpoints/v<version>, the last `keep` of them plus the best by
// evaluation success; `latest` and `best` files name them.
class CheckpointStore {
 public:
  CheckpointStore(std::string logdir, int keep)
      : root_(std::move(logdir) + "/checkpoints"), keep_(keep) {}
  Expected<std::string> save(const Config& config, const msg::WeightsFrame& weights,
                             const CheckpointState& state,
                             const OptimizerState& optimizer_state = {});
  // Writes an evaluation of checkpoint `dir` (one of this store's) into its state and makes it
  // the best if it beats the best so far. A checkpoint pruned meanwhile is left alone.
  Status record_evaluation(const std::string& dir, double success, double mean_return);
  // The newest checkpoint of a run directory, as `latest` names it.
  static Expected<std::string> latest(const std::string& logdir);
  // The newest checkpoint of a run directory that verifies and loads (for --resume); `skipped`
  // hears of each newer one that does not, with the reason.
  using SkippedCheckpoint = std::function<void(const std::string& dir, const Error& why)>;
  static Expected<Checkpoint> latest_valid(const std::string& logdir,
                                           const SkippedCheckpoint& skipped = {});
  static Expected<std::string> best(const std::string& logdir);

 private:
  Status prune();
  void remove_leftovers() const;
  Status update_best(const std::string& name, double success, double mean_return);
  std::string root_;
  int keep_;
};

}  // namespace dvla
