#pragma once
// FlatParameters: every parameter of a module moved into one contiguous float32 buffer, each
// parameter becoming a view of its slice. A whole policy is then one buffer: a weight update is a
// single contiguous copy, and the buffer is what a WeightUpdate message carries.
#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/messages/weight_update.hpp>

namespace torch::nn {
class Module;
}

namespace dvla {

namespace gpu {
class PoolLease;
}

class FlatParameters {
 public:
  // Re-homes the parameters of `module` (which must outlive this) into the flat buffer, keeping
  // their values. With a `lease` (on the model pool) the buffer comes from it and goes back to
  // it when the last view of it is gone; a pool that cannot give it throws std::runtime_error
  // naming the pool.
  explicit FlatParameters(torch::nn::Module& module,
                          const std::shared_ptr<gpu::PoolLease>& lease = nullptr);

  const at::Tensor& flat() const { return flat_; }
  const std::vector<msg::ParameterEntry>& manifest() const { return manifest_; }
  int64_t size() const { return flat_.numel(); }

  // The parameters as a weight-update frame at `version`.
  msg::WeightsFrame to_frame(uint64_t version) const;
  // Copies an update in: its manifest must match this one exactly (names, shapes, offsets).
  Status load(const msg::WeightUpdate& update);
  // Copies another replica's parameters in (same manifest required).
  Status load(const FlatParameters& other);

 private:
  at::Tensor flat_;
  std::vector<msg::ParameterEntry> manifest_;
};

}  // namespace dvla
