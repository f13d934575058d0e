#pragma once
// dvla-ppo's command line: every flag sets a config key (DESIGN.md's command-line contract).
#include <string>

#include "runtime/config.hpp"
#include "runtime/expected.hpp"

namespace dvla::apps {

struct PpoOptions {
  Config config;
  bool json = false;  // last stdout line: the summary as one JSON object
  bool help = false;
};

// Applies --config FILE first, then the other flags in order; checks the result with validate().
Expected<PpoOptions> parse_ppo_options(int argc, char** argv);
std::string ppo_help();

}  // namespace dvla::apps
