#pragma once
// Small text helpers shared by the parsers of settings (config, learning-rate schedule).
#include <string>

namespace dvla {

// `s` without leading and trailing spaces, tabs and carriage returns.
inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace dvla
