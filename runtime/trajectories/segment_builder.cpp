#include <dvla/runtime/trajectories/segment_builder.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dvla {

SegmentBuilder::SegmentBuilder(const envs::EnvSpec& spec, int64_t envs, int64_t max_steps,
                               std::pmr::memory_resource* memory)
    : envs_(envs),
      max_steps_(max_steps),
      action_dim_(spec.action.tensor_dim()),
      observations_(spec, memory),
      finals_(spec, memory),
      after_(spec, memory),
      actions_(memory),
      rewards_(memory),
      log_probs_(memory),
      values_(memory),
      terminated_(memory),
      truncated_(memory),
      success_(memory),
      versions_(memory),
      final_indices_(memory),
      valid_(memory),
      ended_(memory) {
  if (envs < 1 || max_steps < 1)
    throw std::invalid_argument("a segment needs at least one env and one step");
  const auto cells = static_cast<size_t>(envs * max_steps);
  observations_.reserve_rows(envs * max_steps);
  actions_.resize(cells * static_cast<size_t>(action_dim_));
  rewards_.resize(cells);
  log_probs_.resize(cells);
  values_.resize(cells);
  terminated_.resize(cells);
  truncated_.resize(cells);
  success_.resize(cells);
  versions_.reserve(static_cast<size_t>(max_steps));
}

void SegmentBuilder::start_episodes(std::vector<int32_t> groups) {
  if (!empty()) throw std::logic_error("episodes start with a segment, not within one");
  if (static_cast<int64_t>(groups.size()) != envs_)
    throw std::invalid_argument("start_episodes needs one group per env");
  episodic_ = true;
  groups_ = std::move(groups);
  valid_.assign(static_cast<size_t>(envs_ * max_steps_), 0);
  ended_.assign(static_cast<size_t>(envs_), 0);
}

bool SegmentBuilder::episodes_ended() const {
  return episodic_ && std::all_of(ended_.begin(), ended_.end(), [](uint8_t e) { return e != 0; });
}

bool SegmentBuilder::last_step_valid(int64_t env) const {
  return !episodic_ || steps_ == 0 || valid_[static_cast<size_t>((steps_ - 1) * envs_ + env)];
}

void SegmentBuilder::begin_step(const envs::BatchOutput& before, const msg::ActionBatch& answer) {
  if (full()) throw std::logic_error("segment is full: finish it before recording more steps");
  if (step_open_) throw std::logic_error("begin_step twice without end_step");
  if (answer.actions.dim(0) != envs_ || answer.actions.dim(1) != action_dim_)
    throw std::invalid_argument("action batch of shape " + msg::shape_string(answer.actions.shape) +
                                " for " + std::to_string(envs_) + " envs of action size " +
                                std::to_string(action_dim_));
  const auto cell = static_cast<size_t>(steps_ * envs_);
  const auto n = static_cast<size_t>(envs_);
  observations_.put(steps_ * envs_, before);
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
    success_[cell + e] = outcome.episode_ended(e) && outcome.episode_ends[e].success;
    if (episodic_) {
      valid_[cell + e] = !ended_[e];
      if (ended_[e]) continue;  // past its episode: nothing of this step is used
      ended_[e] = outcome.episode_ended(e);
    }
    if (!outcome.truncated[e]) continue;
    final_indices_.push_back(static_cast<uint32_t>(cell + e));
    finals_.append_final(outcome, e, observations_.tokens(static_cast<int64_t>(cell + e)));
  }
  step_open_ = false;
  ++steps_;
}

void SegmentBuilder::observe_after(const envs::BatchOutput& after) {
  if (step_open_) throw std::logic_error("observe_after within a step");
  if (static_cast<int64_t>(after.rewards.size()) != envs_)
    throw std::invalid_argument("observe_after needs one observation per env of the segment");
  after_.put(0, after);
}

msg::SegmentFrame SegmentBuilder::finish(uint32_t sampler_id, uint64_t sequence,
                                         const float* bootstrap_values, bool last,
                                         uint32_t first_env) {
  if (empty() || step_open_)
    throw std::logic_error("cannot finish an empty or half-recorded segment");
  const std::vector<int64_t> per_step{steps_, envs_};
  msg::TrajectorySegment s;
  s.sampler_id = sampler_id;
  s.sequence = sequence;
  s.first_env = first_env;
  s.last = last;
  s.observations = observations_.view(per_step);
  s.actions = {actions_.data(), {steps_, envs_, action_dim_}};
  s.rewards = {rewards_.data(), per_step};
  s.terminated = {terminated_.data(), per_step};
  s.truncated = {truncated_.data(), per_step};
  s.success = {success_.data(), per_step};
  s.log_probs = {log_probs_.data(), per_step};
  s.values = {values_.data(), per_step};
  s.bootstrap_values = {bootstrap_values, {envs_}};
  s.policy_versions.assign(versions_.begin(), versions_.end());
  s.final_indices.assign(final_indices_.begin(), final_indices_.end());
  if (!final_indices_.empty())
    s.final_observations = finals_.view({static_cast<int64_t>(final_indices_.size())});
  if (after_.rows() > 0) s.bootstrap_observations = after_.view({envs_});
  if (episodic_) {
    s.valid = {valid_.data(), per_step};
    s.groups = groups_;
  }
  auto frame = msg::build(s);
  std::fill(valid_.begin(), valid_.end(), 0);
  std::fill(ended_.begin(), ended_.end(), 0);
  steps_ = 0;
  versions_.clear();
  final_indices_.clear();
  finals_.clear();
  after_.clear();
  return frame;
}

}  // namespace dvla
