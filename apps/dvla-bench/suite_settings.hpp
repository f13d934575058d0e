#pragma once
// A suite's `--set KEY=VALUE` settings: config keys (as for dvla-ppo), or the suite's own whole
// numbers of at least 1, applied through a table of setters. A bad value or an unknown key is an
// error naming the key (and, for a suite's own, the keys there are).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla::apps {

using WholeSetter = std::function<void(int64_t)>;

// Keys in `skip` are left to the caller (settings that are not numbers).
Status apply_whole_settings(const std::vector<std::pair<std::string, std::string>>& settings,
                            const std::vector<std::pair<std::string, WholeSetter>>& setters,
                            const std::vector<std::string>& skip = {});

// `--set KEY=VALUE` settings that are config keys (as for dvla-ppo), then the whole config checked.
Status apply_config_settings(Config& c,
                             const std::vector<std::pair<std::string, std::string>>& settings);

}  // namespace dvla::apps
