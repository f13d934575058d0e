#pragma once
// RewardScaler (ppo.reward_scale=return_std): rewards divided by the running standard deviation
// of the discounted return, as Stable-Baselines3's VecNormalize does, so that value targets are
// of order 1 whatever the reward's scale (Pendulum's -16 per step, CartPole's 1). Each env's
// return runs across its segments: a stream is (sampler, env), reset where an episode ends.
// Only the moments are checkpointed; the streams' running returns start again from 0.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/trajectory_segment.hpp>

namespace dvla {

// Count, mean and variance of a stream of numbers, merged a batch at a time.
struct RunningMoments {
  double count = 1e-4;  // as Stable-Baselines3's RunningMeanStd: a first batch all but replaces
  double mean = 0;
  double variance = 1;

  void add(const std::vector<double>& values);
};

class RewardScaler {
 public:
  static constexpr double clip = 10.0;  // scaled rewards beyond +-clip are cut (as VecNormalize)

  explicit RewardScaler(double gamma) : gamma_(gamma) {}

  // The segment's rewards [T * envs], scaled: its returns are merged into the moments first.
  std::vector<float> scale(const msg::TrajectorySegment& segment);
  double scale_divisor() const;  // what rewards are divided by now
  const RunningMoments& moments() const { return moments_; }

  // The moments as JSON text, for checkpoints; and back (the error names what is wrong).
  std::string to_json() const;
  Status from_json(const std::string& text);

 private:
  // The running discounted returns of the envs of one segment's stream of segments.
  std::vector<double>& returns_of(const msg::TrajectorySegment& segment);

  double gamma_;
  RunningMoments moments_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<double>> returns_;  // (sampler, first env)
};

}  // namespace dvla
