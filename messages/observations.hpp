#pragma once
// Observations: what a policy sees for a block of envs (or steps x envs), as views. `state` is
// always there; `images` and `instructions` only for envs that have cameras and instructions
// (their shape is then empty and their data null).
#include <cstdint>

#include <dvla/messages/tensor_ref.hpp>

namespace dvla::msg {

struct Observations {
  TensorRef<float> state;           // [..., obs...]
  TensorRef<uint8_t> images;        // [..., cameras, height, width, 3]
  TensorRef<int32_t> instructions;  // [..., length]

  bool has_images() const { return !images.shape.empty(); }
  bool has_instructions() const { return !instructions.shape.empty(); }
};

}  // namespace dvla::msg
