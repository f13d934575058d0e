#pragma once
// The apps' command lines are CLI11 apps (docs/dependencies.md says why). This parses one the
// same way in every app: --help prints the generated help on stdout, a bad flag is one line on
// stderr naming it, and the exit status says which (0 for help, 2 for bad flags).
#include <cstddef>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace dvla::apps {

// Parses argv into `app` (its callbacks run as CLI11 parses). nullopt: go on; otherwise the
// app should exit with the returned status, the message already printed.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

// Prints a refused command line's error as parse_command_line does; returns 2, the exit status.
int refuse_command_line(const std::string& app_name, const std::string& message);

// `text` wrapped at spaces into lines of at most `width` columns (a longer word stays whole),
// its own line breaks kept, for a caller that wrote the first line's `indent` columns already;
// the lines after the first start with `indent` spaces.
std::string wrap_words(const std::string& text, size_t width, size_t indent = 0);

// Every app's help in the same layout: flags in the first kFlagColumn columns, descriptions
// beside them wrapped to kHelpWidth.
constexpr size_t kFlagColumn = 26;
constexpr size_t kHelpWidth = 100;
void use_dvla_help_format(CLI::App& app);
// An app's description for the top of its help, wrapped.
std::string app_description(const std::string& text);
// A flag's description wrapped for the column beside the flags.
std::string flag_help(const std::string& text);

}  // namespace dvla::apps
