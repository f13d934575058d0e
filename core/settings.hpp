#pragma once
// Settings: typed values addressed by key ("ppo.learning_rate"), set from text and written back
// as the same text — the one mechanism behind config files, --set and --help. A table of Setting
// rows points into a plain struct; each layer declares the rows of the settings it owns (the
// run's in runtime/config, each env's beside the env: envs/synthetic.hpp, envs/tabletop/).
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include <dvla/core/enum_text.hpp>
#include <dvla/core/expected.hpp>

namespace dvla {

// A field of an enum type, set and read through the enum's names (core/enum_text.hpp).
struct EnumField {
  std::function<bool(const std::string&)> set;  // false: not one of the names
  std::function<std::string()> get;
  std::string choices;  // "async or sync"
};

template <class E>
EnumField enum_field(E* field) {
  return {[field](const std::string& text) {
            auto v = from_text<E>(text);
            if (v) *field = *v;
            return v.has_value();
          },
          [field] { return std::string(to_text(*field)); }, choices<E>()};
}

using SettingRef = std::variant<uint64_t*, int*, int64_t*, double*, bool*, std::string*,
                                std::vector<int64_t>*, std::vector<std::string>*, EnumField>;

struct Setting {
  std::string key;
  std::string description;
  SettingRef ref;
};

// Sets `setting` from `text` (trimmed); the error names the key and the form the value needs.
Status set_setting(const Setting& setting, const std::string& text);
// The value as text, in the form set_setting takes back.
std::string format_setting(const Setting& setting);
// The row of `key`, or null.
const Setting* find_setting(const std::vector<Setting>& table, const std::string& key);

}  // namespace dvla
