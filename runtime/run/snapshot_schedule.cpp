#include <dvla/runtime/run/snapshot_schedule.hpp>

namespace dvla {

SnapshotSchedule::SnapshotSchedule(const RunConfig& run, uint64_t version, bool can_evaluate)
    : checkpoint_every_(run.logdir.empty() ? 0 : static_cast<uint64_t>(run.checkpoint_every)),
      evaluation_every_(can_evaluate ? static_cast<uint64_t>(run.eval_every) : 0),
      next_checkpoint_(version + checkpoint_every_),
      next_evaluation_(version + evaluation_every_) {}

SnapshotSchedule::Due SnapshotSchedule::on_version(uint64_t version, bool evaluations_full) {
  Due due;
  due.checkpoint = checkpoint_every_ > 0 && version >= next_checkpoint_;
  due.evaluation = evaluation_every_ > 0 && !evaluations_full && version >= next_evaluation_;
  if (due.checkpoint) next_checkpoint_ = version + checkpoint_every_;
  if (due.evaluation) next_evaluation_ = version + evaluation_every_;
  return due;
}

}  // namespace dvla
