#pragma once
// The built-in policies by name: what model.policy in the config selects.
#include <memory>

#include <dvla/core/expected.hpp>
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

class Policy;

// A policy for `spec` as `model` describes it, with initial parameters drawn from `seed`.
Expected<std::shared_ptr<Policy>> make_policy(const ModelConfig& model, const envs::EnvSpec& spec,
                                              uint64_t seed);

}  // namespace dvla
