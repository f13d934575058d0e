#pragma once
// What the envs of a batch observe now, as message views over the batch's own buffers (no copy):
// a sampler builds its observation requests from this.
#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/observations.hpp>

namespace dvla {

msg::Observations observations_of(const envs::BatchOutput& out, const envs::EnvSpec& spec);

}  // namespace dvla
