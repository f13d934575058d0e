#pragma once
// Whether observations that arrived in a message fit the env spec a policy was built for: shapes
// of every part and token ids within the vocabulary (an out-of-range id would index past an
// embedding table).
#include <string>

#include <dvla/envs/env_spec.hpp>
#include <dvla/messages/observations.hpp>

namespace dvla {

// Empty when `o` (with `lead` leading dimensions) fits `spec`; else what does not.
std::string observation_mismatch(const msg::Observations& o, size_t lead,
                                 const envs::EnvSpec& spec);

}  // namespace dvla
