#include "runtime/segment_builder.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dvla {

SegmentBuilder::SegmentBuilder(const envs::EnvSpec& spec, int64_t envs, int64_t max_steps)
    : envs_(envs),
      max_steps_(max_steps),
      obs_size_(spec.observation_size()),
      action_dim_(spec.action.tensor_dim()),
      obs_shape_(spec.observation_shape) {
  if (envs < 1 || max_steps < 1)
    throw std::invalid_argument("a segment needs at least one env and one step");
  const auto cells = static_cast<size_t>(envs * max_steps);
  observations_.resize(cells * static_cast<size_t>(obs_size_));
  actions_.resize(cells * static_cast<size_t>(action_dim_));
  rewards_.resize(cells);
  log_probs_.resize(cells);
  values_.resize(cells);
  terminated_.resize(cells);
  truncated_.resize(cells);
  versions_.reserve(static_cast<size_t>(max_steps));
}

void SegmentBuilder::begin_step(const float* observations, const msg::ActionBatch& answer) {
  if (full()) throw std::logic_error("segment is full: finish it before recording more steps");
  if (step_open_) throw std::logic_error("begin_step twice without end_step");
  if (answer.actions.dim(0) != envs_ || answer.actions.dim(1) != action_dim_)
    throw std::invalid_argument("action batch of shape " + msg::shape_string(answer.actions.shape) +
                                " for " + std::to_string(envs_) + " envs of action size " +
                                std::to_string(action_dim_));
  const auto cell = static_cast<size_t>(steps_ * envs_);
  const auto n = static_cast<size_t>(envs_);
  std::copy_n(observations, n * obs_size_, observations_.begin() + cell * obs_size_);
  std::copy_n(answer.actions.data, n * action_dim_, actions_.begin() + cell * action_dim_);
  std::copy_n(answer.log_probs.data, n, log_probs_.begin() + cell);
  std::copy_n(answer.values.data, n, values_.begin() + cell);
  versions_.push_back(answer.policy_version);
  step_open_ = true;
}

void SegmentBuilder::end_step(const envs::BatchOutput& outcome) {
  if (!step_open_) throw std::logic_error("end_step without begin_step");
  const auto cell = static_cast<size_t>(steps_ * envs_);
  const auto n = static_cast<size_t>(envs_);
  std::copy_n(outcome.rewards.data(), n, rewards_.begin() + cell);
  std::copy_n(outcome.terminated.data(), n, terminated_.begin() + cell);
  std::copy_n(outcome.truncated.data(), n, truncated_.begin() + cell);
  for (size_t e = 0; e < n; ++e) {
    if (!outcome.truncated[e]) continue;
    final_indices_.push_back(static_cast<uint32_t>(cell + e));
    const float* last = outcome.final_observations.data() + e * obs_size_;
    final_observations_.insert(final_observations_.end(), last, last + obs_size_);
  }
  step_open_ = false;
  ++steps_;
}

msg::SegmentFrame SegmentBuilder::finish(uint32_t sampler_id, uint64_t sequence,
                                         const float* bootstrap_values) {
  if (empty() || step_open_)
    throw std::logic_error("cannot finish an empty or half-recorded segment");
  auto per_step = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> shape{steps_, envs_};
    shape.insert(shape.end(), tail.begin(), tail.end());
    return shape;
  };
  msg::TrajectorySegment s;
  s.sampler_id = sampler_id;
  s.sequence = sequence;
  s.observations = {observations_.data(), per_step(obs_shape_)};
  s.actions = {actions_.data(), per_step({action_dim_})};
  s.rewards = {rewards_.data(), per_step({})};
  s.terminated = {terminated_.data(), per_step({})};
  s.truncated = {truncated_.data(), per_step({})};
  s.log_probs = {log_probs_.data(), per_step({})};
  s.values = {values_.data(), per_step({})};
  s.bootstrap_values = {bootstrap_values, {envs_}};
  s.policy_versions = versions_;
  s.final_indices = final_indices_;
  std::vector<int64_t> final_shape{static_cast<int64_t>(final_indices_.size())};
  final_shape.insert(final_shape.end(), obs_shape_.begin(), obs_shape_.end());
  s.final_observations = {final_observations_.data(), final_shape};
  auto frame = msg::build(s);
  steps_ = 0;
  versions_.clear();
  final_indices_.clear();
  final_observations_.clear();
  return frame;
}

}  // namespace dvla
