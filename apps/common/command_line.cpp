#include "common/command_line.hpp"

namespace dvla::apps {

CommandLine::CommandLine(int argc, char** argv) : words_(argv + 1, argv + argc) {}

std::string CommandLine::take() { return done() ? std::string() : words_[next_++]; }

Expected<std::string> CommandLine::value_of(const std::string& flag) {
  if (done() || words_[next_].rfind("--", 0) == 0) return Error(flag + " needs a value");
  return words_[next_++];
}

}  // namespace dvla::apps
