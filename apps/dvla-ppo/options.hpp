#pragma once
// dvla-ppo's command line (CLI11): every flag sets a config key (DESIGN.md's command-line
// contract), except the few that choose what to do (--resume, --eval, --json).
#include <string>
#include <variant>

#include <dvla/runtime/config/config.hpp>

namespace dvla::apps {

struct PpoOptions {
  Config config;
  std::string resume;  // --resume: a run directory to continue (its logdir)
  std::string eval;    // --eval: a checkpoint (or run directory) to evaluate, no training
  bool json = false;   // last stdout line: the summary as one JSON object
  // --fresh-optimizer: resume from a checkpoint without optimizer state (else that is an error)
  bool fresh_optimizer = false;
};

// Starts from the defaults, or from the resumed run's or evaluated checkpoint's config.txt; then
// applies --config FILE, then the other flags in order; checks the result with validate().
// The options, or the status to exit with: after --help (printed, 0) or a refused command line
// (its error printed, 2).
std::variant<PpoOptions, int> parse_ppo_options(int argc, char** argv);

}  // namespace dvla::apps
