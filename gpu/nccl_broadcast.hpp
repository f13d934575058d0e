#pragma once
// NcclBroadcast: one NCCL communicator over this process's GPUs, broadcasting a flat weight
// buffer from the trainer's device to every replica's device as one collective (a weight update
// is one contiguous buffer: runtime/weights/flat_parameters.hpp). Compiled only with
// DVLA_HAVE_CUDA.
#include <memory>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla::gpu {

class NcclBroadcast {
 public:
  // A communicator over `devices` (ncclCommInitAll); an error names what failed, also when a
  // device does not exist.
  static Expected<std::unique_ptr<NcclBroadcast>> create(const std::vector<int>& devices);
  ~NcclBroadcast();
  NcclBroadcast(const NcclBroadcast&) = delete;
  NcclBroadcast& operator=(const NcclBroadcast&) = delete;

  // buffers[i] (`count` floats) lives on devices[i]; buffers[root]'s contents reach all of them,
  // ordered on streams[i] (cudaStream_t; null: the default stream). Returns once enqueued.
  Status broadcast(const std::vector<float*>& buffers, size_t count, int root,
                   const std::vector<void*>& streams);

  size_t size() const { return devices_.size(); }

 private:
  explicit NcclBroadcast(std::vector<int> devices);
  std::vector<int> devices_;
  std::vector<void*> comms_;  // ncclComm_t, kept out of this header
};

}  // namespace dvla::gpu
