#pragma once
// A suite's own `--set KEY=VALUE` settings that are whole numbers of at least 1, applied through
// a table of setters. A bad number or an unknown key is an error naming the key (and the keys
// there are).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/expected.hpp"

namespace dvla::apps {

using WholeSetter = std::function<void(int64_t)>;

// Keys in `skip` are left to the caller (settings that are not numbers).
Status apply_whole_settings(const std::vector<std::pair<std::string, std::string>>& settings,
                            const std::vector<std::pair<std::string, WholeSetter>>& setters,
                            const std::vector<std::string>& skip = {});

}  // namespace dvla::apps
