#pragma once
// FlatParameters: every parameter of a module moved into one contiguous float32 buffer, each
// parameter becoming a view of its slice. A whole policy is then one buffer: a weight update is a
// single contiguous copy, and the buffer is what a WeightUpdate message carries. On the host the
// parameters may instead view a received frame's buffer in place (share): the replicas of a node
// then act with one immutable copy of a version, and fanning it out copies nothing.
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
  // Copies an update in: its manifest must match this one exactly (names, shapes, offsets). A
  // bfloat16 update is widened to float32. The parameters are this object's own buffer again.
  Status load(const msg::WeightUpdate& update);
  // Copies another replica's parameters in (same manifest required).
  Status load(const FlatParameters& other);

  // Whether share() can view `update` in place: a host buffer, a float32 update that fits.
  bool can_share(const msg::WeightUpdate& update) const;
  // The parameters become views of `update`'s buffer inside `frame` (read `update` from it), which
  // they keep alive; nothing is copied. The frame is immutable: nothing may write the parameters
  // until the next load, which copies into this object's own buffer again. Where it cannot share,
  // it loads.
  Status share(const msg::WeightsFrame& frame, const msg::WeightUpdate& update);

  // Host buffers: binds this object's own buffer to NUMA node `numa` (pages move there) and
  // answers the node the OS then reports it on.
  Expected<int> bind_to_numa_node(int numa);

 private:
  void view_into(const at::Tensor& base);  // the parameters become slices of `base`
  void own_again();                        // ... of owned_, when they view a shared frame

  at::Tensor flat_;   // what the parameters view: owned_, or a shared frame's buffer
  at::Tensor owned_;  // this object's own buffer
  std::vector<at::Tensor> parameters_;  // the module's, in manifest order
  std::vector<msg::ParameterEntry> manifest_;
};

}  // namespace dvla
