#include <dvla/runtime/trajectories/observation_buffer.hpp>

#include <algorithm>

namespace dvla {

ObservationBuffer::ObservationBuffer(const envs::EnvSpec& spec, std::pmr::memory_resource* memory)
    : state_shape_(spec.observation_shape),
      image_shape_(spec.image_shape),
      state_size_(spec.observation_size()),
      image_size_(spec.image_size()),
      token_count_(spec.instruction_length),
      state_(memory),
      images_(memory),
      tokens_(memory) {}

void ObservationBuffer::grow(int64_t rows) {
  if (static_cast<int64_t>(state_.size()) >= rows * state_size_) return;
  state_.resize(static_cast<size_t>(rows * state_size_));
  images_.resize(static_cast<size_t>(rows * image_size_));
  tokens_.resize(static_cast<size_t>(rows * token_count_));
}

void ObservationBuffer::reserve_rows(int64_t rows) { grow(rows); }

void ObservationBuffer::put(int64_t row, const envs::BatchOutput& out) {
  const auto envs = static_cast<int64_t>(out.rewards.size());
  grow(row + envs);
  std::copy(out.observations.begin(), out.observations.end(), state_.begin() + row * state_size_);
  std::copy(out.images.begin(), out.images.end(), images_.begin() + row * image_size_);
  std::copy(out.instruction_tokens.begin(), out.instruction_tokens.end(),
            tokens_.begin() + row * token_count_);
  rows_ = std::max(rows_, row + envs);
}

void ObservationBuffer::append_row(const float* state, const uint8_t* images,
                                   const int32_t* tokens) {
  grow(rows_ + 1);
  std::copy_n(state, state_size_, state_.begin() + rows_ * state_size_);
  std::copy_n(images, image_size_, images_.begin() + rows_ * image_size_);
  std::copy_n(tokens, token_count_, tokens_.begin() + rows_ * token_count_);
  ++rows_;
}

void ObservationBuffer::append(const envs::BatchOutput& out, size_t env) {
  const auto e = static_cast<int64_t>(env);
  append_row(out.observations.data() + e * state_size_, out.images.data() + e * image_size_,
             out.instruction_tokens.data() + e * token_count_);
}

void ObservationBuffer::append_final(const envs::BatchOutput& out, size_t env,
                                     const int32_t* tokens) {
  const auto e = static_cast<int64_t>(env);
  append_row(out.final_observations.data() + e * state_size_,
             out.final_images.data() + e * image_size_, tokens);
}

msg::Observations ObservationBuffer::view(std::vector<int64_t> lead) const {
  auto with = [&](const std::vector<int64_t>& tail) {
    auto shape = lead;
    shape.insert(shape.end(), tail.begin(), tail.end());
    return shape;
  };
  msg::Observations o;
  o.state = {state_.data(), with(state_shape_)};
  if (image_size_ > 0) o.images = {images_.data(), with(image_shape_)};
  if (token_count_ > 0) o.instructions = {tokens_.data(), with({token_count_})};
  return o;
}

}  // namespace dvla
