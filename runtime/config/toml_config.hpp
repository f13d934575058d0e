#pragma once
// Config files in TOML (toml11): top-level keys and [sections], whose keys join the section's
// name to make the config key ([ppo] learning_rate = 3e-4 sets ppo.learning_rate; [tabletop]
// suite = "lift" sets tabletop.suite; dotted keys work too). Values keep their TOML types: an
// integer or a float for numbers, true/false, a quoted string for text and enum names, an array
// of integers for lists. Errors name the file, the line and the key.
//
// load_config_file (config.hpp) reads a file whose name ends in .toml this way, and any other
// file as `key = value` lines, the form dvla-ppo writes to a logdir's config.txt.
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

// Applies TOML `text` to `config`; `origin` (a file name) names it in errors.
Status load_toml_config_text(Config& config, const std::string& text, const std::string& origin);

}  // namespace dvla
