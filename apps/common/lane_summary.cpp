#include "common/lane_summary.hpp"

#include <fmt/core.h>

namespace dvla::apps {
namespace {

double total(const std::vector<uint64_t>& counts) {
  double n = 0;
  for (auto c : counts) n += static_cast<double>(c);
  return n;
}

}  // namespace

nlohmann::json lane_busy_json(const LaneReport& report) {
  nlohmann::json j;
  for (auto lane : all_lanes) j[lane_name(lane)] = report[lane].busy_fraction;
  return j;
}

nlohmann::json lanes_json(const LaneReport& report) {
  nlohmann::json j;
  for (auto lane : all_lanes) {
    const auto& use = report[lane];
    j[lane_name(lane)] = {{"actors", use.actors},
                          {"busy_fraction", use.busy_fraction},
                          {"busy_seconds", use.busy_s},
                          {"cpu_seconds", use.cpu_s}};
  }
  return j;
}

nlohmann::json work_json(const LaneReport& report) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, seconds] : report.work_s) j[name] = seconds;
  return j;
}

nlohmann::json policy_lag_json(const std::vector<uint64_t>& samples_at_lag) {
  nlohmann::json j = nlohmann::json::object();
  const double n = total(samples_at_lag);
  for (size_t lag = 0; lag < samples_at_lag.size(); ++lag)
    if (samples_at_lag[lag] > 0)
      j[std::to_string(lag)] = static_cast<double>(samples_at_lag[lag]) / n;
  return j;
}

std::string lanes_line(const LaneReport& report) {
  std::string line = "lanes busy:";
  for (auto lane : all_lanes) {
    const auto& use = report[lane];
    line += fmt::format(" {} {:.0f}%{}", lane_name(lane), 100 * use.busy_fraction,
                        use.actors > 1 ? fmt::format(" (of {} actors)", use.actors) : "");
    if (lane != all_lanes.back()) line += ",";
  }
  return line;
}

double lanes_cpu_s(const LaneReport& report) {
  double cpu = 0;
  for (const auto& use : report.lanes) cpu += use.cpu_s;
  return cpu;
}

std::string cpu_line(const LaneReport& report) {
  const double lanes = lanes_cpu_s(report), process = report.process_cpu_s;
  return fmt::format("CPU: lanes {:.1f} s of the process's {:.1f} s ({:.0f}%)", lanes, process,
                     process > 0 ? 100 * lanes / process : 0.0);
}

std::string policy_lag_line(const std::vector<uint64_t>& samples_at_lag) {
  const double n = total(samples_at_lag);
  if (n == 0) return "policy lag: no samples trained";
  std::string line = "policy lag (versions: share of trained samples):";
  for (size_t lag = 0; lag < samples_at_lag.size(); ++lag)
    if (samples_at_lag[lag] > 0)
      line += fmt::format(" {}: {:.1f}%", lag, 100 * static_cast<double>(samples_at_lag[lag]) / n);
  return line;
}

}  // namespace dvla::apps
