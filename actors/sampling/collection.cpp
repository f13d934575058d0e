#include <dvla/actors/sampling/collection.hpp>

#include <dvla/actors/sampling/continuous_collection.hpp>
#include <dvla/actors/sampling/episodic_collection.hpp>

namespace dvla::actors {

std::unique_ptr<Collection> make_collection(int group_size, bool lock_step) {
  if (group_size > 0) return std::make_unique<EpisodicCollection>(group_size, lock_step);
  if (lock_step) return std::make_unique<LockStepCollection>();
  return std::make_unique<ContinuousCollection>();
}

}  // namespace dvla::actors
