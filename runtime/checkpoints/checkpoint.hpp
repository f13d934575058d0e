#pragma once
// Checkpoints: everything a run needs to continue or to be evaluated, in one directory written
// atomically (to a temporary sibling, then renamed into place):
//   config.txt      the run's settings
//   weights         the policy's WeightUpdate frame
//   optimizer.pt    the optimizer's state (LibTorch archive), when there is one
//   state.json      version, counters, evaluation result, the learner's RNG state
// CheckpointStore keeps the last N of a run and its best.
#include <functional>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
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
};

struct Checkpoint {
  Config config;
  msg::WeightsFrame weights;
  CheckpointState state;
  std::string optimizer_path;  // empty: no optimizer state
};

// Binary state (an RNG's) as text for state.json, and back.
std::string to_hex(const void* data, size_t size);
Expected<std::vector<uint8_t>> from_hex(const std::string& text);

// `save_optimizer` writes the optimizer's state to the path it is given (skipped when empty).
Status save_checkpoint(const std::string& dir, const Config& config,
                       const msg::WeightsFrame& weights, const CheckpointState& state,
                       const std::function<Status(const std::string&)>& save_optimizer = {});
// Reads and validates a checkpoint directory; errors name the file that is missing or wrong.
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
                             const std::function<Status(const std::string&)>& save_optimizer = {});
  // Writes an evaluation of checkpoint `dir` (one of this store's) into its state and makes it
  // the best if it beats the best so far. A checkpoint pruned meanwhile is left alone.
  Status record_evaluation(const std::string& dir, double success, double mean_return);
  // The newest checkpoint of a run directory (for --resume).
  static Expected<std::string> latest(const std::string& logdir);
  static Expected<std::string> best(const std::string& logdir);

 private:
  Status prune();
  Status update_best(const std::string& name, double success, double mean_return);
  std::string root_;
  int keep_;
};

}  // namespace dvla
