#include <dvla/runtime/learners/learner_registry.hpp>

#include <dvla/runtime/learners/builtin_algorithms.hpp>
#include <dvla/runtime/learners/learner_algorithm.hpp>

namespace dvla {

LearnerRegistry LearnerRegistry::builtin() {
  LearnerRegistry r;
  r.factories_["ppo"] = make_ppo_algorithm;
  r.factories_["grpo"] = make_grpo_algorithm;
  return r;
}

Status LearnerRegistry::add(const std::string& name, LearnerFactory factory) {
  if (name.empty()) return Error("a learner algorithm needs a name");
  if (!factory) return Error("learner algorithm '" + name + "' has no factory");
  if (factories_.count(name))
    return Error("learner algorithm '" + name + "' is registered already");
  factories_[name] = std::move(factory);
  return Status::ok();
}

Expected<std::unique_ptr<LearnerAlgorithm>> LearnerRegistry::make(const std::string& name,
                                                                  const Config& config) const {
  if (auto known = check(name); !known) return known.error();
  auto algorithm = factories_.at(name)(config);
  if (!algorithm) return Error("learner algorithm '" + name + "': its factory returned nothing");
  return algorithm;
}

Status LearnerRegistry::check(const std::string& name) const {
  if (factories_.count(name)) return Status::ok();
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  return Error("algo '" + name + "' is not available (" + known + ")");
}

std::vector<std::string> LearnerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : factories_) out.push_back(entry.first);
  return out;
}

}  // namespace dvla
