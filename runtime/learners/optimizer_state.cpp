#include <dvla/runtime/learners/optimizer_state.hpp>

#include <torch/optim/optimizer.h>
#include <torch/serialize.h>

namespace dvla {

Status save_optimizer(torch::optim::Optimizer& optimizer, const std::string& path) {
  try {
    torch::save(optimizer, path);
  } catch (const std::exception& e) {
    return Error("cannot save the optimizer state to '" + path + "': " + e.what());
  }
  return Status::ok();
}

Status load_optimizer(torch::optim::Optimizer& optimizer, const std::string& path) {
  try {
    torch::load(optimizer, path);
  } catch (const std::exception& e) {
    return Error("cannot load the optimizer state from '" + path + "': " + e.what());
  }
  return Status::ok();
}

}  // namespace dvla
