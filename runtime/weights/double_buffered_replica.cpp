#include <dvla/runtime/weights/double_buffered_replica.hpp>

#include <stdexcept>

#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla {

// A policy and the flat buffer its parameters are views of.
struct DoubleBufferedReplica::Buffer {
  std::shared_ptr<Policy> policy;
  std::unique_ptr<FlatParameters> parameters;
  uint64_t version = 0;
  bool holds_weights = false;  // loaded from a frame (else: the factory's own initialisation)
};

std::unique_ptr<DoubleBufferedReplica::Buffer> DoubleBufferedReplica::make_buffer(
    const std::string& name, const PolicyFactory& make_policy, const msg::WeightsFrame& initial,
    const std::shared_ptr<gpu::PoolLease>& lease) {
  auto b = std::make_unique<Buffer>();
  b->policy = make_policy();
  if (!b->policy) throw std::invalid_argument(name + ": the policy factory returned nothing");
  try {
    b->parameters = std::make_unique<FlatParameters>(*b->policy, lease);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("weight buffer: ") + e.what());  // names the holder
  }
  if (initial.size() == 0) return b;
  auto update = msg::read(initial);
  if (!update) throw std::invalid_argument(name + ": initial weights: " + update.error().message());
  if (auto loaded = b->parameters->load(*update); !loaded)
    throw std::invalid_argument(name + ": initial weights: " + loaded.error().message());
  b->version = update->version;
  b->holds_weights = true;
  return b;
}

DoubleBufferedReplica::DoubleBufferedReplica(const std::string& name,
                                             const PolicyFactory& make_policy,
                                             const msg::WeightsFrame& initial,
                                             const std::shared_ptr<gpu::PoolLease>& lease)
    : first_(make_buffer(name, make_policy, initial, lease)),
      second_(make_buffer(name, make_policy, initial, lease)),
      active_(first_.get()),
      staging_(second_.get()) {}

DoubleBufferedReplica::~DoubleBufferedReplica() = default;

Expected<uint64_t> DoubleBufferedReplica::stage(const msg::WeightUpdate& update) {
  std::lock_guard<std::mutex> lock(mutex_);
  return staged(staging_->parameters->load(update), update.version);
}

Expected<uint64_t> DoubleBufferedReplica::stage(const msg::WeightsFrame& frame,
                                                const msg::WeightUpdate& update) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!share_frames_) return staged(staging_->parameters->load(update), update.version);
  return staged(staging_->parameters->share(frame, update), update.version);
}

Expected<int> DoubleBufferedReplica::bind_to_numa_node(int numa) {
  std::lock_guard<std::mutex> lock(mutex_);
  share_frames_ = false;
  if (auto staging = staging_->parameters->bind_to_numa_node(numa); !staging) return staging;
  return active_->parameters->bind_to_numa_node(numa);
}

Expected<uint64_t> DoubleBufferedReplica::staged(const Status& loaded, uint64_t version) {
  if (!loaded) return loaded.error();
  staging_->version = version;
  staging_->holds_weights = true;
  staged_ = true;
  return version;
}

Policy& DoubleBufferedReplica::active() { return *active_->policy; }

uint64_t DoubleBufferedReplica::active_version() const { return active_->version; }

bool DoubleBufferedReplica::swap_in_staged() {
  // Until the active buffer holds weights it was given, inference waits for a copy in progress:
  // a newer update being staged over the first one must not leave it acting with none.
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (active_->holds_weights)
    lock.try_lock();
  else
    lock.lock();
  if (!lock.owns_lock() || !staged_) return false;
  std::swap(active_, staging_);
  staged_ = false;
  return true;
}

}  // namespace dvla
