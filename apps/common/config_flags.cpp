#include "common/config_flags.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>

#include "common/command_line.hpp"

namespace dvla::apps {
namespace {

const ConfigKeyInfo* key_info(const std::vector<ConfigKeyInfo>& keys, const std::string& key) {
  auto k = std::find_if(keys.begin(), keys.end(), [&](const auto& i) { return i.key == key; });
  return k == keys.end() ? nullptr : &*k;
}

constexpr size_t kKeyColumn = 31;  // where a config key's description starts

std::string default_text(const ConfigKeyInfo& k) {
  return k.default_value.empty() ? "empty" : k.default_value;
}

}  // namespace

void ConfigFlags::add_config_file_flag(const std::string& description) {
  app_.add_option("--config", config_file_, flag_help(description))->type_name("FILE");
}

void ConfigFlags::add_set_flag(const std::string& description) {
  app_.add_option_function<std::string>(
          "--set",
          [this](const std::string& text) {
            const auto eq = text.find('=');
            if (eq == std::string::npos || eq == 0)
              throw CLI::ValidationError("--set", "needs KEY=VALUE, got '" + text + "'");
            settings_.push_back({text.substr(0, eq), text.substr(eq + 1)});
          },
          flag_help(description))
      ->type_name("KEY=VALUE")
      ->trigger_on_parse();
}

void ConfigFlags::add_key_flag(const std::string& flag, const std::string& key,
                               const std::string& value_name, const std::string& note,
                               std::function<std::string(const std::string&)> to_value) {
  const auto keys = config_keys();
  const auto* info = key_info(keys, key);
  if (!info) throw std::logic_error("flag " + flag + " names no config key '" + key + "'");
  std::string help =
      fmt::format("{} ({}, default {})", info->description, key, default_text(*info));
  if (!note.empty()) help += "; " + note;
  app_.add_option_function<std::string>(
          flag,
          [this, key, to_value = std::move(to_value)](const std::string& text) {
            settings_.push_back({key, to_value ? to_value(text) : text});
          },
          flag_help(help))
      ->type_name(value_name)
      ->trigger_on_parse();
}

Status ConfigFlags::apply_to(Config& config) const {
  if (!config_file_.empty())
    if (auto s = load_config_file(config, config_file_); !s) return s;
  for (const auto& [key, value] : settings_)
    if (auto s = set_config_value(config, key, value); !s) return s;
  return validate(config);
}

std::string config_keys_help() {
  std::string text = "Config keys (--set KEY=VALUE, or in a --config file):\n";
  for (const auto& k : config_keys()) {
    // A key wider than its column gets a line of its own.
    const std::string name =
        k.key.size() < kKeyColumn - 3 ? k.key : k.key + "\n" + std::string(kKeyColumn - 1, ' ');
    text += fmt::format(
        "  {:<{}} {}\n", name, kKeyColumn - 3,
        wrap_words(k.description + " (default " + default_text(k) + ")", kHelpWidth, kKeyColumn));
  }
  return text;
}

}  // namespace dvla::apps
