#pragma once
// A policy exported from Python as TorchScript (model.policy = torchscript). The contract
// (docs/api.md, "TorchScript policies"):
//
//   forward(state, images, tokens) -> (mean, log_std, value)   continuous actions of D dims
//   forward(state, images, tokens) -> (logits, value)          discrete actions of K choices
//
//   state   float32 [N, obs...]
//   images  uint8   [N, cameras, H, W, 3] as the env renders them; [N, 0] when it has none
//   tokens  int64   [N, L] instruction token ids;                  [N, 0] when it has none
//   mean [N, D], log_std [D] or [N, D], logits [N, K], value [N] or [N, 1], all float32.
//
// The module's parameters are the policy's: they join the flat buffer and are trained like any
// other. Loading runs forward once on a probe batch and refuses a module that breaks the contract
// with a message naming what does not fit.
#include <memory>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/envs/env_spec.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

Expected<std::shared_ptr<Policy>> load_torchscript_policy(const std::string& path,
                                                          const envs::EnvSpec& spec);

}  // namespace dvla
