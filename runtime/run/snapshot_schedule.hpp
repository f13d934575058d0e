#pragma once
// SnapshotSchedule: which policy versions get a checkpoint (every checkpoint.every versions, with
// a logdir) and which an evaluation (every eval.every versions; one that falls due while no
// evaluation can be taken, one running and the backlog full, waits for the next version after
// that). When both fall due together the checkpoint's weights are evaluated, so that the best
// checkpoint can be chosen.
#include <cstdint>

#include <dvla/runtime/config/config.hpp>

namespace dvla {

class SnapshotSchedule {
 public:
  struct Due {
    bool checkpoint = false;
    bool evaluation = false;
  };

  // `version`: where the run starts (a resumed run's checkpoint version); `can_evaluate`: the run
  // has an evaluator (eval.episodes > 0).
  SnapshotSchedule(const RunConfig& run, uint64_t version, bool can_evaluate);

  // What a new version is due for; `evaluations_full`: no evaluation can be taken now. What it
  // returns is taken as done: the next of each falls due so many versions later.
  Due on_version(uint64_t version, bool evaluations_full);

 private:
  uint64_t checkpoint_every_, evaluation_every_;  // 0: never during the run
  uint64_t next_checkpoint_, next_evaluation_;
};

}  // namespace dvla
