#include <dvla/runtime/lanes/lock_step.hpp>

#include <algorithm>

namespace dvla {

void LockStep::waiting(uint32_t sampler, bool last) {
  if (waiting_.insert(sampler).second && last) ++leaving_;
}

bool LockStep::round_complete() const {
  return !waiting_.empty() && waiting_.size() >= collecting_;
}

void LockStep::leave(uint32_t sampler) {
  if (waiting_.count(sampler)) return;  // it waits already: its last segment reached the trainer
  collecting_ -= std::min<size_t>(collecting_, 1);
}

void LockStep::release() {
  collecting_ -= std::min(collecting_, leaving_);
  leaving_ = 0;
  waiting_.clear();
}

}  // namespace dvla
