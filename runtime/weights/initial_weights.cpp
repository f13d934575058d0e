#include <dvla/runtime/weights/initial_weights.hpp>

#include <filesystem>

#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/checkpoints/weights_file.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla {

Expected<msg::WeightsFrame> load_initial_weights(const std::string& path) {
  if (!std::filesystem::is_directory(path)) return load_weights(path);
  auto dir = resolve_checkpoint(path);
  if (!dir) return dir.error();
  auto checkpoint = load_checkpoint(*dir);
  if (!checkpoint) return checkpoint.error();
  return checkpoint->weights;
}

Status load_into(Policy& policy, const msg::WeightsFrame& weights) {
  auto update = msg::read(weights);
  if (!update) return update.error();
  // The parameters stay views of this buffer after `flat` goes: their storage is shared.
  FlatParameters flat(policy);
  return flat.load(*update);
}

}  // namespace dvla
