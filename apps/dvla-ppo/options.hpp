#pragma once
// dvla-ppo's command line: every flag sets a config key (DESIGN.md's command-line contract).
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla::apps {

struct PpoOptions {
  Config config;
  std::string resume;  // --resume: a run directory to continue (its logdir)
  std::string eval;    // --eval: a checkpoint (or run directory) to evaluate, no training
  bool json = false;   // last stdout line: the summary as one JSON object
  // --fresh-optimizer: resume from a checkpoint without optimizer state (else that is an error)
  bool fresh_optimizer = false;
  bool help = false;
};

// Starts from the defaults, or from the resumed run's or evaluated checkpoint's config.txt; then
// applies --config FILE, then the other flags in order; checks the result with validate().
Expected<PpoOptions> parse_ppo_options(int argc, char** argv);
std::string ppo_help();

}  // namespace dvla::apps
