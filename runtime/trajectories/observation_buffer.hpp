#pragma once
// ObservationBuffer: rows of observations (state, camera images, instruction tokens) laid out
// back to back as the messages carry them, so a block of rows is one view with no repacking.
#include <cstdint>
#include <memory_resource>
#include <vector>

#include <dvla/envs/batched_env.hpp>
#include <dvla/messages/observations.hpp>

namespace dvla {

class ObservationBuffer {
 public:
  // The rows live in `memory` (a sampler's lease on the sim pool; by default the heap).
  explicit ObservationBuffer(const envs::EnvSpec& spec,
                             std::pmr::memory_resource* memory = std::pmr::get_default_resource());

  // Room for `rows` rows (their contents are overwritten by put()).
  void reserve_rows(int64_t rows);
  int64_t rows() const { return rows_; }
  void clear() { rows_ = 0; }

  // Copies what every env of `out` observes now into rows [row, row + envs).
  void put(int64_t row, const envs::BatchOutput& out);
  // Appends what env `env` of `out` observes now.
  void append(const envs::BatchOutput& out, size_t env);
  // Appends env `env`'s last observation before its auto-reset (final_observations and
  // final_images of `out`), with `tokens` as its instruction (the ended episode's).
  void append_final(const envs::BatchOutput& out, size_t env, const int32_t* tokens);
  const int32_t* tokens(int64_t row) const { return tokens_.data() + row * token_count_; }

  // Rows [0, rows) as observations with leading dimensions `lead` (their product is rows).
  msg::Observations view(std::vector<int64_t> lead) const;

 private:
  void grow(int64_t rows);
  void append_row(const float* state, const uint8_t* images, const int32_t* tokens);

  std::vector<int64_t> state_shape_, image_shape_;
  int64_t state_size_, image_size_, token_count_;
  int64_t rows_ = 0;
  std::pmr::vector<float> state_;
  std::pmr::vector<uint8_t> images_;
  std::pmr::vector<int32_t> tokens_;
};

}  // namespace dvla
