#pragma once
// DoubleBufferedReplica: the two weight buffers of one inference replica. Inference acts with the
// active buffer while the distributor copies a new version into the staging one on its own thread;
// inference swaps them at a batch boundary. A weight transfer therefore never runs on the
// inference thread and never waits for a forward pass, nor a forward pass for a transfer.
//
// Threads: stage() is called by one distributor thread; swap_in_staged() and active() by the one
// inference thread. Only stage() and the swap take the lock, and the swap only tries it.
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/messages/weight_update.hpp>

namespace dvla {

class Policy;
class FlatParameters;
namespace gpu {
class PoolLease;
}

class DoubleBufferedReplica {
 public:
  using PolicyFactory = std::function<std::shared_ptr<Policy>()>;

  // Builds both buffers with `make_policy`; `initial` (when not empty) is loaded into both, and its
  // version becomes the active one. With a `lease` (on the model pool) both flat buffers come
  // from it. Throws naming `name` on bad input or when the pool cannot give the buffers.
  DoubleBufferedReplica(const std::string& name, const PolicyFactory& make_policy,
                        const msg::WeightsFrame& initial,
                        const std::shared_ptr<gpu::PoolLease>& lease = nullptr);
  ~DoubleBufferedReplica();
  DoubleBufferedReplica(const DoubleBufferedReplica&) = delete;
  DoubleBufferedReplica& operator=(const DoubleBufferedReplica&) = delete;

  // Distributor thread: copies `update` into the staging buffer (a newer update staged before the
  // swap replaces the older one). Answers the staged version, or why the update does not fit.
  Expected<uint64_t> stage(const msg::WeightUpdate& update);
  // The same, but a host replica's staging buffer views `update` inside `frame` (read from it) in
  // place instead of copying it: every replica of a node shares the one immutable frame.
  Expected<uint64_t> stage(const msg::WeightsFrame& frame, const msg::WeightUpdate& update);

  // Inference thread, at a batch boundary: makes the staged version active, unless a transfer is
  // being copied right now (then the next boundary does; before the active buffer has ever been
  // given weights, it waits for that copy instead). True when it swapped.
  bool swap_in_staged();

  // Several NUMA nodes: binds both buffers to NUMA node `numa` (that of the replica's cores) and
  // from then on copies each version into them rather than sharing a frame that lies wherever it
  // was received. Answers the node the OS reports the buffers on. Before inference starts.
  Expected<int> bind_to_numa_node(int numa);

  // Inference thread: the policy to act with, and its version.
  Policy& active();
  uint64_t active_version() const;

 private:
  struct Buffer;
  static std::unique_ptr<Buffer> make_buffer(const std::string& name,
                                             const PolicyFactory& make_policy,
                                             const msg::WeightsFrame& initial,
                                             const std::shared_ptr<gpu::PoolLease>& lease);

  // Marks the staging buffer as holding `version` once `loaded` succeeded; mutex_ held.
  Expected<uint64_t> staged(const Status& loaded, uint64_t version);

  std::unique_ptr<Buffer> first_, second_;
  Buffer* active_;
  Buffer* staging_;
  bool staged_ = false;  // staging_ holds a version not yet swapped in; guarded by mutex_
  bool share_frames_ = true;  // false once bound to a NUMA node: versions are copied there
  std::mutex mutex_;
};

}  // namespace dvla
