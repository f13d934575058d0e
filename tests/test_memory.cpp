// Dual-pool memory: pools enforce their budgets with an error naming the pool, the request and
// the budget; fragmentation shows in the largest free block; leases give back what their holder
// still has when it ends, also when an actor holding one is killed or crashes; the CUDA pools
// build and, without a device, say so instead of failing.
#include <doctest/doctest.h>

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include <dvla/gpu/arena_resource.hpp>
#include <dvla/gpu/host_pool.hpp>
#include <dvla/gpu/memory_pools.hpp>
#include <dvla/gpu/pool_lease.hpp>
#ifdef DVLA_HAVE_CUDA
#include <cuda_runtime.h>
#include <dvla/gpu/cuda_pool.hpp>
#include <dvla/gpu/nccl_broadcast.hpp>
#endif

using namespace dvla;
using namespace dvla::gpu;

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

}  // namespace

TEST_CASE("an arena carves aligned blocks and coalesces them when they come back") {
  ArenaResource arena(1 * MiB);
  void* a = arena.allocate(256 * KiB, 64);
  void* b = arena.allocate(256 * KiB, 4096);
  void* c = arena.allocate(256 * KiB, 64);
  CHECK(reinterpret_cast<uintptr_t>(b) % 4096 == 0);
  CHECK(arena.in_use() == 768 * KiB);
  arena.deallocate(b, 256 * KiB, 4096);
  CHECK(arena.largest_free() >= 256 * KiB);
  arena.deallocate(a, 256 * KiB, 64);
  arena.deallocate(c, 256 * KiB, 64);
  CHECK(arena.in_use() == 0);
  CHECK(arena.largest_free() == 1 * MiB);  // one block again
  CHECK(arena.peak() == 768 * KiB);
  CHECK_THROWS_AS((void)arena.allocate(2 * MiB, 64), std::bad_alloc);
}

TEST_CASE("a pool refuses a request beyond its budget by name, and keeps serving") {
  HostPool pool("model", 1 * MiB);
  auto big = pool.allocate(2 * MiB);
  REQUIRE_FALSE(big);
  CHECK(big.error().message().find("pool 'model' cannot allocate 2.0 MiB: budget 1.0 MiB") == 0);
  auto fits = pool.allocate(512 * KiB);
  REQUIRE(fits);
  const auto s = pool.stats();
  CHECK(s.failed_requests == 1);
  CHECK(s.allocations == 1);
  CHECK(s.in_use == 512 * KiB);
  CHECK(s.reserved >= 512 * KiB);
  pool.deallocate(*fits, 512 * KiB);
  CHECK(pool.stats().in_use == 0);
  CHECK(pool.stats().peak_in_use == 512 * KiB);
}

TEST_CASE("fragmentation shows: free memory in holes cannot serve one large block") {
  HostPool pool("shared", 1 * MiB);
  std::vector<void*> blocks;
  for (auto b = pool.allocate(128 * KiB); b; b = pool.allocate(128 * KiB)) blocks.push_back(*b);
  REQUIRE(blocks.size() >= 6);
  // Every other block goes back, each between two held ones: holes of 128 KiB.
  size_t freed = 0;
  for (size_t i = 1; i + 1 < blocks.size(); i += 2, ++freed) pool.deallocate(blocks[i], 128 * KiB);
  const auto s = pool.stats();
  // (the pool resource adds a little bookkeeping to each block it passes to the arena)
  CHECK(s.largest_free_block >= static_cast<int64_t>(128 * KiB));
  CHECK(s.largest_free_block < static_cast<int64_t>(129 * KiB));
  REQUIRE(freed >= 2);
  auto large = pool.allocate(256 * KiB);  // 256 KiB and more are free, but not in one piece
  REQUIRE_FALSE(large);
  CHECK(large.error().message().find("largest free block 128.") != std::string::npos);
  for (size_t i = 0; i < blocks.size(); ++i)
    if (i % 2 == 0 || i + 1 == blocks.size()) pool.deallocate(blocks[i], 128 * KiB);
  CHECK(pool.stats().in_use == 0);
}

TEST_CASE("a lease gives back what its holder still has when it ends") {
  auto pool = std::make_shared<HostPool>("sim", 4 * MiB);
  {
    PoolLease lease(pool, "sampler/0");
    auto a = lease.allocate_block(100 * KiB);
    auto b = lease.allocate_block(300 * KiB);
    REQUIRE(a);
    REQUIRE(b);
    lease.release_block(*a);
    CHECK(lease.held_blocks() == 1);
    CHECK(lease.held_bytes() == 300 * KiB);
    int foreign = 0;
    lease.release_block(&foreign);  // not the lease's: ignored
    CHECK(pool->stats().in_use == 300 * KiB);
    auto refused = lease.allocate_block(8 * MiB);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find("sampler/0: pool 'sim' cannot allocate 8.0 MiB") == 0);
    // As a pmr resource: containers allocate through the lease.
    std::pmr::vector<float> v(&lease);
    v.resize(1000);
    CHECK(lease.held_blocks() == 2);
    // Through pmr, a refusal is a std::bad_alloc that still says which pool and why.
    CHECK_THROWS_WITH_AS(v.resize(4 * MiB),
                         doctest::Contains("sampler/0: pool 'sim' cannot allocate"),
                         std::bad_alloc);
  }
  CHECK(pool->stats().in_use == 0);
}

TEST_CASE("an actor's lease returns its memory when the actor is killed or crashes") {
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto pool = std::make_shared<HostPool>("sim", 8 * MiB);
  struct Holder {
    std::unique_ptr<PoolLease> lease;
  };
  auto spawn_holder = [&](const char* name) {
    return system.spawn([pool, name](caf::stateful_actor<Holder>* self) -> caf::behavior {
      self->state.lease = std::make_unique<PoolLease>(pool, name);
      for (int i = 0; i < 3; ++i)
        if (!self->state.lease->allocate_block(1 * MiB)) throw std::runtime_error("no memory");
      return {[](int x) -> int {
        if (x < 0) throw std::runtime_error("crash");
        return x;
      }};
    });
  };
  caf::scoped_actor self{system};
  auto killed = spawn_holder("killed");
  self->request(killed, caf::infinite, 1).receive([](int) {}, [](caf::error&) {});
  CHECK(pool->stats().in_use == 3 * MiB);
  self->send_exit(killed, caf::exit_reason::kill);
  self->wait_for(killed);
  CHECK(pool->stats().in_use == 0);

  auto crashing = spawn_holder("crashing");
  self->request(crashing, caf::infinite, 1).receive([](int) {}, [](caf::error&) {});
  CHECK(pool->stats().in_use == 3 * MiB);
  self->send(crashing, -1);
  self->wait_for(crashing);
  CHECK(pool->stats().in_use == 0);
}

TEST_CASE("a pool can go while threads that used it are still ending") {
  // CAF counts a detached actor's thread done before the thread has run its exit handlers, so
  // train() can destroy the pools while such a thread is still ending. A pool that kept state
  // per thread (std::pmr::synchronized_pool_resource did) crashed here within a few hundred rounds.
  for (int round = 0; round < 2000; ++round) {
    auto pool = std::make_unique<HostPool>("sim", 1 * MiB);
    std::atomic<int> done{0};
    constexpr int threads = 4;
    for (int t = 0; t < threads; ++t)
      std::thread([&pool, &done] {
        auto block = pool->allocate(256);  // small: from the pool's chunks
        if (block) pool->deallocate(*block, 256);
        done.fetch_add(1);
      }).detach();
    while (done.load() < threads) std::this_thread::yield();
    CHECK(pool->stats().in_use == 0);
    pool.reset();
  }
}

TEST_CASE("the process's two pools have their own budgets") {
  auto pools = MemoryPools::create({PoolKind::host, 2 * MiB, 1 * MiB});
  REQUIRE(pools);
  CHECK((*pools)->sim()->name() == "sim");
  CHECK((*pools)->model()->name() == "model");
  auto sim_block = (*pools)->sim()->allocate(1536 * KiB);
  REQUIRE(sim_block);
  // The simulator cannot take the model's space, nor the model the simulator's.
  CHECK_FALSE((*pools)->model()->allocate(1536 * KiB));
  auto model_block = (*pools)->model()->allocate(768 * KiB);
  CHECK(model_block);
  (*pools)->sim()->deallocate(*sim_block, 1536 * KiB);
  (*pools)->model()->deallocate(*model_block, 768 * KiB);
  CHECK_FALSE(MemoryPools::create({PoolKind::host, 0, 1 * MiB}));
  auto too_small = MemoryPools::create({PoolKind::host, 1 * MiB, 1 * KiB});
  REQUIRE_FALSE(too_small);
  CHECK(too_small.error().message() ==
        "pool 'model': a budget of 1.0 KiB is below the 64.0 KiB a pool needs for "
        "itself");
}

TEST_CASE("CUDA pools: built where the toolkit is, refused with a reason where there is no GPU") {
  auto pools = MemoryPools::create({PoolKind::cuda, 64 * MiB, 64 * MiB});
  if (!built_with_cuda()) {
    REQUIRE_FALSE(pools);
    CHECK(pools.error().message().find("this build has no CUDA") != std::string::npos);
    return;
  }
#ifdef DVLA_HAVE_CUDA
  if (cuda_device_count() == 0) {
    MESSAGE("no CUDA device: the CUDA pool tests are skipped");
    REQUIRE_FALSE(pools);
    CHECK(pools.error().message().find("no CUDA device 0 (0 found)") != std::string::npos);
    return;
  }
  REQUIRE_MESSAGE(pools, pools.error().message());
  auto& model = *(*pools)->model();
  CHECK(model.kind() == PoolKind::cuda);
  auto over = model.allocate(128 * MiB);
  REQUIRE_FALSE(over);
  CHECK(over.error().message().find("pool 'model' cannot allocate 128.0 MiB: budget 64.0 MiB") ==
        0);
  auto fits = model.allocate(32 * MiB);
  REQUIRE(fits);
  CHECK(model.stats().in_use >= 32 * MiB);
  CHECK(model.stats().failed_requests == 1);
  model.deallocate(*fits, 32 * MiB);
  // A weight update between devices: one broadcast of one flat buffer from the pool of device 0.
  // Every device's buffer then holds the root's values (with one GPU, the root's own: the
  // collective ran and left them whole).
  const int devices = std::min(cuda_device_count(), 2);
  std::vector<int> ids(static_cast<size_t>(devices));
  std::iota(ids.begin(), ids.end(), 0);
  auto nccl = NcclBroadcast::create(ids);
  REQUIRE_MESSAGE(nccl, nccl.error().message());
  constexpr size_t count = 1024;
  std::vector<float> sent(count);
  for (size_t i = 0; i < count; ++i) sent[i] = 0.5f * static_cast<float>(i) - 7.0f;
  auto root = model.allocate(count * sizeof(float));
  REQUIRE(root);
  std::vector<float*> buffers{static_cast<float*>(*root)};
  REQUIRE(cudaMemcpy(buffers[0], sent.data(), count * sizeof(float), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  for (int d = 1; d < devices; ++d) {
    cudaSetDevice(d);
    void* other = nullptr;
    REQUIRE(cudaMalloc(&other, count * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(other, 0, count * sizeof(float)) == cudaSuccess);
    buffers.push_back(static_cast<float*>(other));
  }
  cudaSetDevice(0);
  const auto sent_ok = (*nccl)->broadcast(buffers, count, 0, std::vector<void*>(ids.size()));
  CHECK_MESSAGE(sent_ok, sent_ok.error().message());
  for (int d = 0; d < devices; ++d) {
    cuda_synchronize(d);  // the broadcast ran on another stream than the pool's
    std::vector<float> got(count, -1.0f);
    cudaSetDevice(d);
    REQUIRE(cudaMemcpy(got.data(), buffers[static_cast<size_t>(d)], count * sizeof(float),
                       cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK_MESSAGE(got == sent, "device ", d, " holds other values than the root sent");
    if (d > 0) cudaFree(buffers[static_cast<size_t>(d)]);
  }
  cudaSetDevice(0);
  model.deallocate(*root, count * sizeof(float));
#endif
}
