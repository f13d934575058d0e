#pragma once
// Building PolicyInputs from what envs and messages hold, without copying the observations
// (only token ids are widened to int64 for embedding lookups).
#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/observations.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

// Views of `o`, whose leading dimensions are flattened into rows; `o`'s memory must outlive it.
PolicyInput policy_input(const msg::Observations& o, size_t lead);
// Views of what the envs of `out` observe now.
PolicyInput policy_input(const envs::BatchOutput& out, const envs::EnvSpec& spec);
// Rows of several inputs, one after another (the one copy into a batch).
PolicyInput concatenate(const std::vector<PolicyInput>& parts);

}  // namespace dvla
