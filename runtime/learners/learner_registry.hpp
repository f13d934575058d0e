#pragma once
// LearnerRegistry: learner algorithms by name, as --algo NAME (config key `algo`) selects them.
// A value, not a global: the graph a run is built from holds one, starting with dvla's own
// (ppo, grpo); a user adds theirs before the run, without touching dvla's sources. No LibTorch
// here (the graph description includes this): an algorithm's definition is in
// learner_algorithm.hpp.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

class LearnerAlgorithm;

// Builds the algorithm for a run's config (called once per run, before the actors start).
using LearnerFactory = std::function<std::unique_ptr<LearnerAlgorithm>(const Config&)>;

class LearnerRegistry {
 public:
  // An empty registry; builtin() holds dvla's algorithms.
  LearnerRegistry() = default;
  static LearnerRegistry builtin();

  // Registers `factory` as `name`; an empty name or one already taken is an error.
  Status add(const std::string& name, LearnerFactory factory);
  // The algorithm named `name` for `config`; the error lists the names there are.
  Expected<std::unique_ptr<LearnerAlgorithm>> make(const std::string& name,
                                                   const Config& config) const;
  // Whether `name` is registered; the error lists the names there are.
  Status check(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, LearnerFactory> factories_;
};

}  // namespace dvla
