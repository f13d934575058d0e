#include <dvla/gpu/nccl_broadcast.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include <dvla/gpu/cuda_pool.hpp>

namespace dvla::gpu {
namespace {

Error nccl_error(const std::string& what, ncclResult_t r) {
  return Error("NCCL " + what + ": " + ncclGetErrorString(r));
}

}  // namespace

NcclBroadcast::NcclBroadcast(std::vector<int> devices) : devices_(std::move(devices)) {}

Expected<std::unique_ptr<NcclBroadcast>> NcclBroadcast::create(const std::vector<int>& devices) {
  if (devices.empty()) return Error("NCCL broadcast needs at least one device");
  const int available = cuda_device_count();
  for (int d : devices)
    if (d < 0 || d >= available)
      return Error("NCCL broadcast: no CUDA device " + std::to_string(d) + " (" +
                   std::to_string(available) + " found)");
  std::vector<ncclComm_t> comms(devices.size());
  if (auto r = ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data());
      r != ncclSuccess)
    return nccl_error("initialising the communicator", r);
  std::unique_ptr<NcclBroadcast> b(new NcclBroadcast(devices));
  for (auto c : comms) b->comms_.push_back(c);
  return b;
}

NcclBroadcast::~NcclBroadcast() {
  for (auto c : comms_) ncclCommDestroy(static_cast<ncclComm_t>(c));
}

Status NcclBroadcast::broadcast(const std::vector<float*>& buffers, size_t count, int root,
                                const std::vector<void*>& streams) {
  if (buffers.size() != devices_.size() || streams.size() != devices_.size())
    return Error("NCCL broadcast: " + std::to_string(devices_.size()) + " devices, " +
                 std::to_string(buffers.size()) + " buffers, " + std::to_string(streams.size()) +
                 " streams");
  if (root < 0 || root >= static_cast<int>(devices_.size()))
    return Error("NCCL broadcast: root " + std::to_string(root) + " is not one of the devices");
  if (auto r = ncclGroupStart(); r != ncclSuccess) return nccl_error("group start", r);
  for (size_t i = 0; i < devices_.size(); ++i) {
    cudaSetDevice(devices_[i]);
    const auto r =
        ncclBroadcast(buffers[static_cast<size_t>(root)], buffers[i], count, ncclFloat, root,
                      static_cast<ncclComm_t>(comms_[i]), static_cast<cudaStream_t>(streams[i]));
    if (r != ncclSuccess) {
      ncclGroupEnd();
      return nccl_error("broadcast", r);
    }
  }
  if (auto r = ncclGroupEnd(); r != ncclSuccess) return nccl_error("group end", r);
  return Status::ok();
}

}  // namespace dvla::gpu
