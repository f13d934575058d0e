#include <dvla/runtime/trajectories/observation_check.hpp>

namespace dvla {
namespace {

template <class T>
std::vector<int64_t> tail(const msg::TensorRef<T>& t, size_t lead) {
  return {t.shape.begin() + static_cast<long>(lead), t.shape.end()};
}

}  // namespace

std::string observation_mismatch(const msg::Observations& o, size_t lead,
                                 const envs::EnvSpec& spec) {
  if (tail(o.state, lead) != spec.observation_shape)
    return "observations of shape " + msg::shape_string(tail(o.state, lead)) +
           " per env, this policy takes " + msg::shape_string(spec.observation_shape);
  const bool wants_images = spec.image_size() > 0;
  if (o.has_images() != wants_images)
    return wants_images ? "observations without the camera images this policy takes"
                        : "camera images for a policy that takes none";
  if (wants_images && tail(o.images, lead) != spec.image_shape)
    return "images of shape " + msg::shape_string(tail(o.images, lead)) +
           " per env, this policy takes " + msg::shape_string(spec.image_shape);
  const bool wants_tokens = spec.instruction_length > 0;
  if (o.has_instructions() != wants_tokens)
    return wants_tokens ? "observations without the instruction this policy takes"
                        : "an instruction for a policy that takes none";
  if (wants_tokens) {
    if (o.instructions.shape.back() != spec.instruction_length)
      return "instructions of " + std::to_string(o.instructions.shape.back()) +
             " tokens, this policy takes " + std::to_string(spec.instruction_length);
    for (int64_t i = 0; i < o.instructions.numel(); ++i)
      if (o.instructions.data[i] >= spec.vocabulary_size)
        return "token id " + std::to_string(o.instructions.data[i]) +
               " is outside the vocabulary of " + std::to_string(spec.vocabulary_size);
  }
  return {};
}

}  // namespace dvla
