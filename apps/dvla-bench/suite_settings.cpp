#include "dvla-bench/suite_settings.hpp"

#include <algorithm>

namespace dvla::apps {

Status apply_whole_settings(const std::vector<std::pair<std::string, std::string>>& settings,
                            const std::vector<std::pair<std::string, WholeSetter>>& setters,
                            const std::vector<std::string>& skip) {
  for (const auto& [key, value] : settings) {
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    auto setter = std::find_if(setters.begin(), setters.end(),
                               [&key = key](const auto& s) { return s.first == key; });
    if (setter == setters.end()) {
      std::string keys;
      for (const auto& k : skip) keys += (keys.empty() ? "" : ", ") + k;
      for (const auto& s : setters) keys += (keys.empty() ? "" : ", ") + s.first;
      return Error("unknown setting '" + key + "' (" + keys + ")");
    }
    int64_t x = 0;
    size_t used = 0;
    try {
      x = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      return Error("'" + key + "=" + value + "' needs a whole number");
    if (x < 1) return Error(key + " must be at least 1");
    setter->second(x);
  }
  return Status::ok();
}

Status apply_config_settings(Config& c,
                             const std::vector<std::pair<std::string, std::string>>& settings) {
  for (const auto& [key, value] : settings)
    if (auto s = set_config_value(c, key, value); !s) return s;
  return validate(c);
}

}  // namespace dvla::apps
