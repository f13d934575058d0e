#pragma once
// An optimizer's state (Adam's moments and step counts) to and from a file, for checkpoints.
#include <string>

#include <dvla/core/expected.hpp>

namespace torch::optim {
class Optimizer;
}

namespace dvla {

Status save_optimizer(torch::optim::Optimizer& optimizer, const std::string& path);
// The optimizer must be built for the same parameters, in the same order.
Status load_optimizer(torch::optim::Optimizer& optimizer, const std::string& path);

}  // namespace dvla
