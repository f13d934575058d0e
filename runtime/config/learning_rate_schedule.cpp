#include <dvla/runtime/config/learning_rate_schedule.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <dvla/core/text.hpp>

namespace dvla {
namespace {

Expected<LearningRateSchedule::Step> parse_step(const std::string& item) {
  auto bad = [&](const std::string& why) {
    return Error("learning-rate step '" + item + "' " + why);
  };
  const auto colon = item.find(':');
  if (colon == std::string::npos) return bad("is not POINT:RATE");
  const auto point = trim(item.substr(0, colon));
  const auto rate = trim(item.substr(colon + 1));
  LearningRateSchedule::Step step{};
  const char* end = point.data() + point.size();
  auto [p, ec] = std::from_chars(point.data(), end, step.from);
  if (point.empty() || ec != std::errc() || p != end)
    return bad("has no point (a non-negative integer) before ':'");
  char* rate_end = nullptr;
  step.rate = std::strtod(rate.c_str(), &rate_end);
  if (rate.empty() || rate_end != rate.c_str() + rate.size() || !std::isfinite(step.rate) ||
      step.rate <= 0)
    return bad("has no positive rate after ':'");
  return step;
}

}  // namespace

Expected<LearningRateSchedule> LearningRateSchedule::parse(double initial_rate,
                                                           const std::string& text) {
  LearningRateSchedule schedule;
  schedule.initial_rate_ = initial_rate;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (trim(item).empty()) return Error("learning-rate schedule '" + text + "' has an empty step");
    auto step = parse_step(trim(item));
    if (!step) return step.error();
    if (!schedule.steps_.empty() && step->from <= schedule.steps_.back().from)
      return Error("learning-rate step '" + trim(item) +
                   "' does not come after the step before it (points must increase)");
    schedule.steps_.push_back(*step);
  }
  return schedule;
}

double LearningRateSchedule::at(uint64_t point) const {
  double rate = initial_rate_;
  for (const auto& step : steps_)
    if (point >= step.from) rate = step.rate;
  return rate;
}

double annealed_rate(double rate, LearningRateAnneal anneal, uint64_t samples_trained,
                     uint64_t max_env_steps) {
  if (anneal == LearningRateAnneal::none || max_env_steps == 0) return rate;
  const double done = static_cast<double>(samples_trained) / static_cast<double>(max_env_steps);
  return rate * std::max(0.0, 1.0 - done);
}

}  // namespace dvla
