#include <dvla/runtime/learners/reward_scaler.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace dvla {
namespace {

constexpr double variance_floor = 1e-8;

}  // namespace

void RunningMoments::add(const std::vector<double>& values) {
  if (values.empty()) return;
  const double n = static_cast<double>(values.size());
  double batch_mean = 0;
  for (double v : values) batch_mean += v;
  batch_mean /= n;
  double batch_m2 = 0;
  for (double v : values) batch_m2 += (v - batch_mean) * (v - batch_mean);
  const double delta = batch_mean - mean, total = count + n;
  const double m2 = variance * count + batch_m2 + delta * delta * count * n / total;
  mean += delta * n / total;
  variance = m2 / total;
  count = total;
}

std::vector<double>& RewardScaler::returns_of(const msg::TrajectorySegment& segment) {
  auto& returns = returns_[{segment.sampler_id, segment.first_env}];
  returns.resize(static_cast<size_t>(segment.envs()), 0.0);
  return returns;
}

std::vector<float> RewardScaler::scale(const msg::TrajectorySegment& segment) {
  const int64_t steps = segment.steps(), envs = segment.envs();
  auto& running = returns_of(segment);
  std::vector<double> seen;
  seen.reserve(static_cast<size_t>(steps * envs));
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t e = 0; e < envs; ++e) {
      const auto i = static_cast<size_t>(t * envs + e);
      auto& ret = running[static_cast<size_t>(e)];
      ret = ret * gamma_ + segment.rewards.data[i];
      seen.push_back(ret);
      if (segment.terminated.data[i] || segment.truncated.data[i]) ret = 0;
    }
  moments_.add(seen);
  const double divisor = scale_divisor();
  std::vector<float> scaled(seen.size());
  for (size_t i = 0; i < scaled.size(); ++i)
    scaled[i] = static_cast<float>(std::clamp(segment.rewards.data[i] / divisor, -clip, clip));
  return scaled;
}

double RewardScaler::scale_divisor() const { return std::sqrt(moments_.variance + variance_floor); }

std::string RewardScaler::to_json() const {
  return nlohmann::json{{"return_count", moments_.count},
                        {"return_mean", moments_.mean},
                        {"return_variance", moments_.variance}}
      .dump();
}

Status RewardScaler::from_json(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    RunningMoments m;
    m.count = j.at("return_count").get<double>();
    m.mean = j.at("return_mean").get<double>();
    m.variance = j.at("return_variance").get<double>();
    if (!(m.count > 0) || !std::isfinite(m.mean) || !(m.variance >= 0) ||
        !std::isfinite(m.variance))
      return Error("reward scale: count must be positive and mean and variance finite");
    moments_ = m;
    return Status::ok();
  } catch (const nlohmann::json::exception& e) {
    return Error(std::string("reward scale: ") + e.what());
  }
}

}  // namespace dvla
