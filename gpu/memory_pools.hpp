#pragma once
// MemoryPools: a process's two pools. `sim` serves the simulators (many small, short-lived
// blocks), `model` the policies (flat weight buffers, staging buffers: few large, long-lived
// blocks); each has its own budget, so neither can take or fragment the other's space. Actors get
// leases on them (gpu/pool_lease.hpp).
#include <memory>
#include <vector>

#include <dvla/gpu/memory_pool.hpp>

namespace dvla::gpu {

struct PoolBudgets {
  PoolKind kind = PoolKind::host;
  size_t sim = size_t{1} << 30;
  size_t model = size_t{1} << 30;
  size_t release_threshold = size_t{64} << 20;  // CUDA: freed memory kept reserved
  int device = 0;                               // CUDA device
};

// One pool of `kind`; CUDA pools need a build with the CUDA toolkit and a device, and say so.
Expected<std::shared_ptr<MemoryPool>> make_pool(PoolKind kind, const std::string& name,
                                                size_t budget, size_t release_threshold = 0,
                                                int device = 0);

// Whether this build has the CUDA pools, streams and NCCL (the toolkit was found).
bool built_with_cuda();

class MemoryPools {
 public:
  static Expected<std::shared_ptr<MemoryPools>> create(const PoolBudgets& budgets);

  const std::shared_ptr<MemoryPool>& sim() const { return sim_; }
  const std::shared_ptr<MemoryPool>& model() const { return model_; }
  std::vector<PoolStats> stats() const { return {sim_->stats(), model_->stats()}; }

 private:
  std::shared_ptr<MemoryPool> sim_, model_;
};

}  // namespace dvla::gpu
