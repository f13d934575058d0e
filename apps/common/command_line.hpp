#pragma once
// CommandLine: the arguments of an app as a queue of words, with the checks every flag needs
// (a value present, a number that parses), so each app's option table stays short.
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla::apps {

class CommandLine {
 public:
  CommandLine(int argc, char** argv);

  bool done() const { return next_ >= words_.size(); }
  // The next word (a flag or a positional argument).
  std::string take();
  // The value of `flag`: the next word, which must exist and not be another flag.
  Expected<std::string> value_of(const std::string& flag);

 private:
  std::vector<std::string> words_;
  size_t next_ = 0;
};

}  // namespace dvla::apps
