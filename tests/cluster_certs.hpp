#pragma once
// Certificates for a test's cluster (scripts/cluster-certs.sh, whose path the test binary is
// given as DVLA_CLUSTER_CERTS), made within a minute.
#include <chrono>
#include <stdexcept>
#include <string>

#include "run_command.hpp"

namespace dvla::test {

// `names` (space-separated) under `dir`; `environment`: "VAR=value ..." for the script. Throws
// with the script's output when it fails.
inline void make_cluster_certs(const std::string& dir, const std::string& names,
                               const std::string& environment = "") {
  const std::string command = environment + " " + DVLA_CLUSTER_CERTS + " " + dir + " " + names;
  const auto o = run_command(command, std::chrono::seconds(60));
  if (o.status != 0)
    throw std::runtime_error(command + " failed (status " + std::to_string(o.status) +
                             "): " + o.output);
}

}  // namespace dvla::test
