#pragma once
// The process's resident set size, for memory figures in benchmarks.
#include <fstream>
#include <string>

namespace dvla::apps {

inline double resident_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      long kib = 0;
      status >> kib;
      return static_cast<double>(kib) / 1024.0;
    }
    status.ignore(1 << 10, '\n');
  }
  return 0;
}

}  // namespace dvla::apps
