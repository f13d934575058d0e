#include <dvla/runtime/learners/optimizer_state.hpp>

#include <torch/optim/optimizer.h>
#include <torch/serialize.h>

#include <sstream>

namespace dvla {

// Into memory, not to a file: LibTorch's archive writer aborts the process when a write fails in
// its destructor (a full disk), so the file is written by storage/durable_file instead.
Expected<std::string> optimizer_bytes(torch::optim::Optimizer& optimizer) {
  try {
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    std::ostringstream out(std::ios::binary);
    archive.save_to(out);
    return std::move(out).str();
  } catch (const std::exception& e) {
    return Error(std::string("cannot serialise the optimizer state: ") + e.what());
  }
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
