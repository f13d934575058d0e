#pragma once
// A text digest of a decoded trajectory segment's every field, for comparing two processes' view.
#include <cstdint>
#include <string>

#include <dvla/messages/trajectory_segment.hpp>

namespace dvla::test {

inline uint64_t fnv1a(const void* data, size_t size, uint64_t h = 1469598103934665603ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

template <class T>
uint64_t fnv1a(const msg::TensorRef<T>& t, uint64_t h = 1469598103934665603ULL) {
  return fnv1a(t.data, static_cast<size_t>(t.numel()) * sizeof(T), h);
}

inline std::string digest(const msg::TrajectorySegment& s) {
  uint64_t h = fnv1a(s.observations.state);
  h = fnv1a(s.observations.images, h);
  h = fnv1a(s.observations.instructions, h);
  h = fnv1a(s.success, h);
  h = fnv1a(s.actions, h);
  h = fnv1a(s.rewards, h);
  h = fnv1a(s.terminated, h);
  h = fnv1a(s.truncated, h);
  h = fnv1a(s.log_probs, h);
  h = fnv1a(s.values, h);
  h = fnv1a(s.bootstrap_values, h);
  h = fnv1a(s.policy_versions.data(), s.policy_versions.size() * 8, h);
  return "sampler " + std::to_string(s.sampler_id) + " seq " + std::to_string(s.sequence) + " T " +
         std::to_string(s.steps()) + " envs " + std::to_string(s.envs()) + " digest " +
         std::to_string(h);
}

}  // namespace dvla::test
