#include <dvla/envs/step_latency.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace dvla::envs {

void StepLatency::spend(size_t envs) {
  using namespace std::chrono;
  const int64_t cost_ns = us_per_env_step_ * 1000 * static_cast<int64_t>(envs);
  if (cost_ns <= 0) return;
  const int64_t target_ns = cost_ns - std::min(oversleep_ns_, cost_ns);
  const auto start = steady_clock::now();
  if (target_ns > 0) std::this_thread::sleep_for(nanoseconds(target_ns));
  const int64_t slept_ns = duration_cast<nanoseconds>(steady_clock::now() - start).count();
  oversleep_ns_ =
      std::max<int64_t>(0, oversleep_ns_ - std::min(oversleep_ns_, cost_ns) + slept_ns - target_ns);
}

void SlowedEnv::step(const float* actions) {
  inner().step(actions);
  latency_.spend(size());
}

}  // namespace dvla::envs
