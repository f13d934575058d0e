#pragma once
// An optimizer's state (Adam's moments and step counts) for checkpoints: as bytes to save (the
// checkpoint writes them, checked, to optimizer.pt), and loaded back from that file.
#include <string>

#include <dvla/core/expected.hpp>

namespace torch::optim {
class Optimizer;
}

namespace dvla {

Expected<std::string> optimizer_bytes(torch::optim::Optimizer& optimizer);
// The optimizer must be built for the same parameters, in the same order.
Status load_optimizer(torch::optim::Optimizer& optimizer, const std::string& path);

}  // namespace dvla
