#pragma once
// How the apps show the lanes of a run: busy fractions and the policy lag distribution, as a
// line for people and as JSON for scripts.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <dvla/runtime/lanes/lane_report.hpp>

namespace dvla::apps {

// {"sampling": 0.93, ...}: each lane's busy fraction.
nlohmann::json lane_busy_json(const LaneReport& report);
// {"sampling": {"actors", "busy_fraction", "busy_seconds", "cpu_seconds"}, ...}
nlohmann::json lanes_json(const LaneReport& report);
// {"env_step": 12.3, "forward": 4.1, ...}: seconds of work per span name, over all actors.
nlohmann::json work_json(const LaneReport& report);
// {"0": 0.6, "1": 0.4}: the fraction of trained samples per versions of lag.
nlohmann::json policy_lag_json(const std::vector<uint64_t>& samples_at_lag);

std::string lanes_line(const LaneReport& report);
// "CPU: lanes 51.2 s of the process's 54.0 s (95%)": how much of the CPU time the lanes account
// for.
std::string cpu_line(const LaneReport& report);
double lanes_cpu_s(const LaneReport& report);
std::string policy_lag_line(const std::vector<uint64_t>& samples_at_lag);

}  // namespace dvla::apps
