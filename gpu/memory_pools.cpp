#include <dvla/gpu/memory_pools.hpp>

#include <stdexcept>

#include <dvla/gpu/host_pool.hpp>
#ifdef DVLA_HAVE_CUDA
#include <dvla/gpu/cuda_pool.hpp>
#endif

namespace dvla::gpu {

bool built_with_cuda() {
#ifdef DVLA_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

Expected<std::shared_ptr<MemoryPool>> make_pool(PoolKind kind, const std::string& name,
                                                size_t budget, size_t release_threshold,
                                                int device) {
  if (budget == 0) return Error("pool '" + name + "' needs a budget above 0 bytes");
  if (kind == PoolKind::host) {
    try {
      return std::shared_ptr<MemoryPool>(std::make_shared<HostPool>(name, budget));
    } catch (const std::invalid_argument& e) {
      return Error(e.what());  // names the pool
    } catch (const std::exception& e) {
      return Error("pool '" + name + "': " + e.what());
    }
  }
#ifdef DVLA_HAVE_CUDA
  return make_cuda_pool(name, budget, release_threshold, device);
#else
  (void)release_threshold;
  (void)device;
  return Error("pool '" + name + "': this build has no CUDA (the toolkit was not found)");
#endif
}

Expected<std::shared_ptr<MemoryPools>> MemoryPools::create(const PoolBudgets& b) {
  auto sim = make_pool(b.kind, "sim", b.sim, b.release_threshold, b.device);
  if (!sim) return sim.error();
  auto model = make_pool(b.kind, "model", b.model, b.release_threshold, b.device);
  if (!model) return model.error();
  auto pools = std::make_shared<MemoryPools>();
  pools->sim_ = *sim;
  pools->model_ = *model;
  return pools;
}

}  // namespace dvla::gpu
