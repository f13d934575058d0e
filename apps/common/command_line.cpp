#include "common/command_line.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>

namespace dvla::apps {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());  // the subcommand's help after one ("dvla-sft train -h")
    return 0;
  } catch (const CLI::ParseError& e) {
    // An error in a callback (a config key's value) carries its own words; CLI11's name the flag.
    return refuse_command_line(app.get_name(), e.what());
  }
}

int refuse_command_line(const std::string& app_name, const std::string& message) {
  fmt::print(stderr, "{}: {}\n({} --help lists the flags)\n", app_name, message, app_name);
  return 2;
}

std::string wrap_words(const std::string& text, size_t width, size_t indent) {
  std::string out;
  size_t column = indent;  // the caller wrote the first line's `indent` columns
  const auto new_line = [&] {
    out += '\n' + std::string(indent, ' ');
    column = indent;
  };
  size_t at = 0;
  while (at < text.size()) {
    if (text[at] == '\n') {
      new_line();
      ++at;
      continue;
    }
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const size_t end = std::min(text.find_first_of(" \n", at), text.size());
    const size_t length = end - at;
    if (column != indent && column + 1 + length > width) new_line();
    if (column != indent) out += ' ', ++column;
    out.append(text, at, length);
    column += length;
    at = end;
  }
  return out;
}

void use_dvla_help_format(CLI::App& app) { app.get_formatter()->column_width(kFlagColumn); }

std::string app_description(const std::string& text) {
  return wrap_words(text, kHelpWidth) + "\n";
}

std::string flag_help(const std::string& text) {
  return wrap_words(text, kHelpWidth - kFlagColumn);
}

}  // namespace dvla::apps
