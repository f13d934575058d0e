#pragma once
// The four lanes of the Swimlane pipeline. Every piece of work an actor does belongs to one of
// them; lane metrics and traces are kept per lane.
#include <array>
#include <cstddef>
#include <cstdint>

namespace dvla {

enum class Lane : uint8_t { sampling, inference, training, distribution };

constexpr size_t lane_count = 4;
constexpr std::array<Lane, lane_count> all_lanes = {Lane::sampling, Lane::inference, Lane::training,
                                                    Lane::distribution};

constexpr const char* lane_name(Lane lane) {
  constexpr const char* names[] = {"sampling", "inference", "training", "distribution"};
  return names[static_cast<size_t>(lane)];
}

}  // namespace dvla
