#include <dvla/runtime/learners/builtin_algorithms.hpp>

#include <memory>

#include <dvla/runtime/learners/grpo.hpp>
#include <dvla/runtime/learners/reward_scaler.hpp>

namespace dvla {
namespace {

class Ppo final : public LearnerAlgorithm {
 public:
  explicit Ppo(const PpoConfig& c)
      : gamma_(static_cast<float>(c.gamma)),
        lambda_(static_cast<float>(c.gae_lambda)),
        values_(c.advantage_values) {
    if (c.reward_scale == RewardScale::return_std)
      reward_scaler_ = std::make_unique<RewardScaler>(c.gamma);
  }

  int64_t samples(const msg::TrajectorySegment& s) const override { return s.steps() * s.envs(); }
  TrainingBatch make_batch(const std::vector<msg::TrajectorySegment>& segments, Policy& policy,
                           uint64_t learner_version) override {
    if (!reward_scaler_)
      return make_training_batch(segments, policy, gamma_, lambda_, learner_version, values_);
    // The same segments with scaled rewards (kept alive here while the batch is built).
    std::vector<std::vector<float>> rewards;
    rewards.reserve(segments.size());
    auto scaled = segments;
    for (auto& s : scaled) {
      rewards.push_back(reward_scaler_->scale(s));
      s.rewards.data = rewards.back().data();
    }
    return make_training_batch(scaled, policy, gamma_, lambda_, learner_version, values_);
  }
  std::string checkpoint_state() const override {
    return reward_scaler_ ? reward_scaler_->to_json() : std::string();
  }
  Status restore_state(const std::string& json) override {
    if (!reward_scaler_ || json.empty()) return Status::ok();
    return reward_scaler_->from_json(json);
  }

 private:
  float gamma_, lambda_;
  AdvantageValues values_;
  std::unique_ptr<RewardScaler> reward_scaler_;  // null: ppo.reward_scale=none
};

class Grpo final : public LearnerAlgorithm {
 public:
  explicit Grpo(const GrpoConfig& c) : config_(c) {}

  Collection collection() const override { return {config_.group_size}; }
  // No critic, and the advantages are already normalised within groups.
  PpoConfig objective(const PpoConfig& c) const override {
    PpoConfig p = c;
    p.value_coef = 0;
    p.normalize_advantages = false;
    return p;
  }
  std::string mismatch(const msg::TrajectorySegment& s) const override { return grpo_mismatch(s); }
  // The valid steps of groups whose episodes scored differently.
  int64_t samples(const msg::TrajectorySegment& s) const override {
    return informative_samples(s, config_.reward);
  }
  TrainingBatch make_batch(const std::vector<msg::TrajectorySegment>& segments, Policy&,
                           uint64_t learner_version) override {
    return make_grpo_batch(segments, config_.reward, learner_version);
  }

 private:
  GrpoConfig config_;
};

}  // namespace

std::unique_ptr<LearnerAlgorithm> make_ppo_algorithm(const Config& config) {
  return std::make_unique<Ppo>(config.ppo);
}

std::unique_ptr<LearnerAlgorithm> make_grpo_algorithm(const Config& config) {
  return std::make_unique<Grpo>(config.grpo);
}

}  // namespace dvla
