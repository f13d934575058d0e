#include <dvla/runtime/learners/builtin_algorithms.hpp>

#include <dvla/runtime/learners/grpo.hpp>

namespace dvla {
namespace {

class Ppo final : public LearnerAlgorithm {
 public:
  explicit Ppo(const PpoConfig& c)
      : gamma_(static_cast<float>(c.gamma)),
        lambda_(static_cast<float>(c.gae_lambda)),
        values_(c.advantage_values) {}

  int64_t samples(const msg::TrajectorySegment& s) const override { return s.steps() * s.envs(); }
  TrainingBatch make_batch(const std::vector<msg::TrajectorySegment>& segments, Policy& policy,
                           uint64_t learner_version) override {
    return make_training_batch(segments, policy, gamma_, lambda_, learner_version, values_);
  }

 private:
  float gamma_, lambda_;
  AdvantageValues values_;
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
