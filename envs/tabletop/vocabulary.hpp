#pragma once
// The suite's fixed vocabulary: every word its instructions use, with stable ids, so a policy's
// token embeddings mean the same across runs. Id 0 pads, id 1 stands for an unknown word.
#include <cstdint>
#include <string>
#include <vector>

namespace dvla::envs::tabletop {

constexpr int32_t pad_token = 0;
constexpr int32_t unknown_token = 1;
constexpr int instruction_length = 12;  // tokens per instruction, padded

const std::vector<std::string>& vocabulary();
// Lower-case words split on spaces, mapped to ids, padded with pad_token to instruction_length
// (longer instructions are cut).
std::vector<int32_t> tokenize(const std::string& instruction);

}  // namespace dvla::envs::tabletop
