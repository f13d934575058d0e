#pragma once
// The flags that set config keys, shared by the apps that take a Config: --config FILE,
// --set KEY=VALUE and shorthand flags for one key each (`--seed 3` is `--set seed=3`). The
// settings keep the command line's order, so of two flags for one key the later one wins; they
// are applied after the config file, whatever the order of --config among them.
#include <functional>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>

namespace CLI {
class App;
}

namespace dvla::apps {

struct ConfigSetting {
  std::string key;
  std::string value;
};

class ConfigFlags {
 public:
  // The flags' callbacks hold this object: it stays where it is while `app` parses.
  explicit ConfigFlags(CLI::App& app) : app_(app) {}
  ConfigFlags(const ConfigFlags&) = delete;
  ConfigFlags& operator=(const ConfigFlags&) = delete;

  // --config FILE: TOML with [sections] when its name ends in .toml, else key = value lines.
  void add_config_file_flag(const std::string& description);
  // --set KEY=VALUE, any number of times.
  void add_set_flag(const std::string& description);
  // `flag VALUE` as shorthand for `--set key=VALUE`; the help is generated from the key's doc
  // and default, with `note` after it. `to_value` turns the flag's text into the key's value.
  void add_key_flag(const std::string& flag, const std::string& key, const std::string& value_name,
                    const std::string& note = {},
                    std::function<std::string(const std::string&)> to_value = {});

  const std::vector<ConfigSetting>& settings() const { return settings_; }
  // The config file (if any), then the settings in order; the result checked with validate().
  Status apply_to(Config& config) const;

 private:
  CLI::App& app_;
  std::string config_file_;
  std::vector<ConfigSetting> settings_;
};

// Every config key, its doc and its default, as the tail of an app's --help.
std::string config_keys_help();

}  // namespace dvla::apps
