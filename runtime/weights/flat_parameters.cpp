#include <dvla/runtime/weights/flat_parameters.hpp>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/utils.h>

#include <stdexcept>

#include <dvla/gpu/pool_lease.hpp>
#include <dvla/runtime/platform/numa_memory.hpp>

namespace dvla {

namespace {

// `count` floats from `lease`, as a tensor whose storage returns them when it is freed.
at::Tensor leased_floats(int64_t count, const std::shared_ptr<gpu::PoolLease>& lease) {
  const auto bytes = static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(float);
  auto block = lease->allocate_block(bytes);
  if (!block) throw std::runtime_error(block.error().message());
  // The deleter holds the lease: the storage may outlive this object (parameter views).
  return at::from_blob(
      *block, {count}, [lease](void* p) { lease->release_block(p); }, at::kFloat);
}

}  // namespace

FlatParameters::FlatParameters(torch::nn::Module& module,
                               const std::shared_ptr<gpu::PoolLease>& lease) {
  auto named = module.named_parameters(/*recurse=*/true);
  int64_t total = 0;
  for (const auto& p : named) {
    msg::ParameterEntry e;
    e.name = p.key();
    e.shape = p.value().sizes().vec();
    e.offset = static_cast<uint64_t>(total);
    total += p.value().numel();
    manifest_.push_back(std::move(e));
  }
  // On a GPU the buffer is LibTorch's there (the host pools cannot serve it).
  const auto device = named.is_empty() ? at::Device(at::kCPU) : named[0].value().device();
  if (!device.is_cpu())
    flat_ = at::empty({total}, at::TensorOptions().dtype(at::kFloat).device(device));
  else
    flat_ = lease ? leased_floats(total, lease) : at::empty({total}, at::kFloat);
  owned_ = flat_;
  torch::NoGradGuard no_grad;
  size_t i = 0;
  for (auto& p : named) {
    auto& param = p.value();
    const auto& e = manifest_[i++];
    flat_.narrow(0, static_cast<int64_t>(e.offset), param.numel()).copy_(param.reshape(-1));
    parameters_.push_back(param);  // the module's own tensor: set_data below re-homes it there
  }
  view_into(flat_);
}

void FlatParameters::view_into(const at::Tensor& base) {
  flat_ = base;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    auto& param = parameters_[i];
    const auto& e = manifest_[i];
    param.set_data(base.narrow(0, static_cast<int64_t>(e.offset), param.numel()).view(e.shape));
  }
}

void FlatParameters::own_again() {
  if (!flat_.is_same(owned_)) view_into(owned_);
}

msg::WeightsFrame FlatParameters::to_frame(uint64_t version) const {
  msg::WeightUpdate u;
  u.version = version;
  u.manifest = manifest_;
  const auto host = flat_.to(at::kCPU);  // the same tensor when it is on the host
  u.flat = {host.data_ptr<float>(), {host.numel()}};
  return msg::build(u);
}

bool FlatParameters::can_share(const msg::WeightUpdate& update) const {
  return owned_.device().is_cpu() && update.precision == msg::WeightPrecision::float32 &&
         update.manifest == manifest_;
}

Status FlatParameters::share(const msg::WeightsFrame& frame, const msg::WeightUpdate& update) {
  if (!can_share(update)) return load(update);
  // The views keep the frame's bytes alive: the deleter holds the frame.
  auto base = at::from_blob(
      const_cast<float*>(update.flat.data), {update.flat.numel()}, [frame](void*) {}, at::kFloat);
  torch::NoGradGuard no_grad;
  view_into(base);
  return Status::ok();
}

Expected<int> FlatParameters::bind_to_numa_node(int numa) {
  if (!owned_.device().is_cpu())
    return Error("its weight buffer is on " + owned_.device().str() + ", not in host memory");
  const auto bytes = static_cast<size_t>(owned_.numel()) * sizeof(float);
  if (auto bound = dvla::bind_to_numa_node(owned_.data_ptr(), bytes, numa); !bound)
    return bound.error();
  return numa_node_of(owned_.data_ptr(), bytes);
}

Status FlatParameters::load(const msg::WeightUpdate& update) {
  if (update.manifest != manifest_) {
    for (size_t i = 0; i < std::min(update.manifest.size(), manifest_.size()); ++i)
      if (!(update.manifest[i] == manifest_[i]))
        return Error("weight update does not fit this policy: parameter " + std::to_string(i) +
                     " is '" + update.manifest[i].name + "' " +
                     msg::shape_string(update.manifest[i].shape) + ", expected '" +
                     manifest_[i].name + "' " + msg::shape_string(manifest_[i].shape));
    return Error("weight update does not fit this policy: it has " +
                 std::to_string(update.manifest.size()) + " parameters, expected " +
                 std::to_string(manifest_.size()));
  }
  torch::NoGradGuard no_grad;
  own_again();
  // A bfloat16 update (rounded for the wire) is widened back to float32 by the copy.
  if (update.precision == msg::WeightPrecision::bfloat16)
    flat_.copy_(at::from_blob(const_cast<uint16_t*>(update.flat_bf16.data),
                              {update.flat_bf16.numel()}, at::kBFloat16));
  else
    flat_.copy_(
        at::from_blob(const_cast<float*>(update.flat.data), {update.flat.numel()}, at::kFloat));
  return Status::ok();
}

Status FlatParameters::load(const FlatParameters& other) {
  if (other.manifest_ != manifest_)
    return Error("replicas of different policies cannot share weights");
  torch::NoGradGuard no_grad;
  own_again();
  flat_.copy_(other.flat_);
  return Status::ok();
}

}  // namespace dvla
