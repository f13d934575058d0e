// dvla-bench memory: why the simulator and the model get pools of their own. One allocation
// pattern is replayed twice at the same total budget: against a single shared pool, and against
// the dual pools (sim + model). The simulator churns many small blocks of varied sizes and
// lifetimes; the model holds two large weight buffers (active and staging) and, at every weight
// update, needs one more large contiguous block for the incoming version before the old staging
// buffer goes. Counted: the model's large allocations that failed, the largest free block, the
// peak reserved, and the simulator's failed allocations (the dual pools must not just move the
// failures there).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <dvla/gpu/memory_pools.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/suite_settings.hpp"

namespace dvla::apps {
namespace {

struct MemoryPattern {
  size_t weights_mib = 48;    // one weight buffer
  size_t sim_high_mib = 200;  // the simulator's live set swings between these two (episodes
  size_t sim_low_mib = 60;    // reset and end in waves), every `swing` updates
  int swing = 5;
  int long_lived_pct = 10;  // simulator blocks kept `long_lived_updates` updates
  int long_lived_updates = 30;
  int cycles = 200;  // weight updates per seed
  int seeds = 10;    // the pattern is replayed with each
  int sim_ops_per_cycle = 400;
  gpu::PoolKind kind = gpu::PoolKind::host;
};

Expected<MemoryPattern> memory_pattern(const BenchOptions& options) {
  MemoryPattern p;
  for (const auto& [key, value] : options.settings) {
    if (key != "kind") continue;
    if (value != "host" && value != "cuda") return Error("kind must be host or cuda");
    p.kind = value == "cuda" ? gpu::PoolKind::cuda : gpu::PoolKind::host;
  }
  auto size = [](size_t& field) { return [&field](int64_t x) { field = static_cast<size_t>(x); }; };
  auto count = [](int& field) { return [&field](int64_t x) { field = static_cast<int>(x); }; };
  auto set = apply_whole_settings(options.settings,
                                  {{"weights_mib", size(p.weights_mib)},
                                   {"sim_high_mib", size(p.sim_high_mib)},
                                   {"sim_low_mib", size(p.sim_low_mib)},
                                   {"cycles", count(p.cycles)},
                                   {"seeds", count(p.seeds)},
                                   {"long_lived_pct", count(p.long_lived_pct)},
                                   {"long_lived_updates", count(p.long_lived_updates)}},
                                  {"kind"});
  if (!set) return set.error();
  if (p.sim_low_mib > p.sim_high_mib) return Error("sim_low_mib is above sim_high_mib");
  return p;
}

struct Block {
  void* p;
  size_t bytes;
  int free_after = 0;  // the cycle before which it stays (long-lived simulator state)
};

struct Outcome {
  uint64_t failed_large = 0, failed_sim = 0, updates = 0, sim_requests = 0;
  int64_t min_largest_free = -1;  // the model pool's (shared: the pool's) before each update
  size_t peak_reserved = 0;
};

// Replays the pattern; `sim` and `model` may be the same pool, and either may be null (that
// part is left out: the other's requests stay the same). Same seed, same requests.
Outcome replay(const MemoryPattern& p, uint64_t seed, gpu::MemoryPool* sim_pool,
               gpu::MemoryPool* model_pool) {
  constexpr size_t MiB = size_t{1} << 20;
  const size_t weights = p.weights_mib * MiB;
  std::mt19937_64 rng(seed);
  // Simulator blocks: 4 KiB to 4 MiB, log-uniform (observations, contact buffers, images); one
  // in ten lives for 30 updates (scene assets, long episodes), the rest come and go.
  std::uniform_real_distribution<double> log_size(std::log(4096.0), std::log(4.0 * MiB));
  std::uniform_real_distribution<double> coin(0, 1);
  std::vector<Block> sim_blocks, model_blocks;
  size_t sim_live = 0;
  Outcome o;
  gpu::MemoryPool& sim = sim_pool ? *sim_pool : *model_pool;
  gpu::MemoryPool& model = model_pool ? *model_pool : *sim_pool;
  auto take = [&](gpu::MemoryPool& pool, size_t bytes, std::vector<Block>& into, int keep) {
    auto b = pool.allocate(bytes);
    if (b) into.push_back({*b, bytes, keep});
    return b.has_value();
  };
  auto free_one = [&](int cycle) {
    for (int tries = 0; tries < 8 && !sim_blocks.empty(); ++tries) {
      const size_t i = rng() % sim_blocks.size();
      if (sim_blocks[i].free_after > cycle) continue;
      std::swap(sim_blocks[i], sim_blocks.back());
      if (sim_pool) sim.deallocate(sim_blocks.back().p, sim_blocks.back().bytes);
      sim_live -= sim_blocks.back().bytes;
      sim_blocks.pop_back();
      return;
    }
  };
  if (model_pool)
    for (int i = 0; i < 2; ++i) take(model, weights, model_blocks, 0);  // active and staging
  for (int c = 0; c < p.cycles; ++c) {
    const size_t target = ((c / p.swing) % 2 ? p.sim_low_mib : p.sim_high_mib) * MiB;
    for (int op = 0; op < p.sim_ops_per_cycle; ++op) {
      const bool grow = sim_live < target ? coin(rng) < 0.8 : coin(rng) < 0.2;
      if (grow) {
        const auto bytes = static_cast<size_t>(std::exp(log_size(rng)));
        const int keep = coin(rng) * 100 < p.long_lived_pct ? c + p.long_lived_updates : 0;
        ++o.sim_requests;
        if (!sim_pool)
          sim_blocks.push_back({nullptr, bytes, keep});  // bookkeeping only: same choices
        if (!sim_pool || take(sim, bytes, sim_blocks, keep))
          sim_live += bytes;
        else
          ++o.failed_sim;
      } else {
        free_one(c);
      }
    }
    if (!model_pool) continue;
    // A weight update: the new version needs a contiguous buffer while the old staging is held.
    const auto largest = model.stats().largest_free_block;
    if (largest >= 0)
      o.min_largest_free = o.min_largest_free < 0 ? largest : std::min(o.min_largest_free, largest);
    ++o.updates;
    if (!take(model, weights, model_blocks, 0)) {
      ++o.failed_large;
      continue;
    }
    model.deallocate(model_blocks[1].p, model_blocks[1].bytes);  // the old staging buffer
    model_blocks.erase(model_blocks.begin() + 1);
  }
  o.peak_reserved = &sim == &model ? sim.stats().peak_reserved
                                   : sim.stats().peak_reserved + model.stats().peak_reserved;
  if (sim_pool)
    for (auto& b : sim_blocks) sim.deallocate(b.p, b.bytes);
  for (auto& b : model_blocks) model.deallocate(b.p, b.bytes);
  return o;
}

// Sums the failures over seeds; the smallest largest-free block and the largest peak.
void add(Outcome& total, const Outcome& o) {
  total.failed_large += o.failed_large;
  total.failed_sim += o.failed_sim;
  total.updates += o.updates;
  total.sim_requests += o.sim_requests;
  if (o.min_largest_free >= 0)
    total.min_largest_free = total.min_largest_free < 0
                                 ? o.min_largest_free
                                 : std::min(total.min_largest_free, o.min_largest_free);
  total.peak_reserved = std::max(total.peak_reserved, o.peak_reserved);
}

nlohmann::json figures(const Outcome& o) {
  return {{"failed_large", o.failed_large},
          {"failed_sim", o.failed_sim},
          {"sim_requests", o.sim_requests},
          {"updates", o.updates},
          {"min_largest_free_mib",
           o.min_largest_free < 0 ? -1.0 : static_cast<double>(o.min_largest_free) / (1 << 20)},
          {"peak_reserved_mib", static_cast<double>(o.peak_reserved) / (1 << 20)}};
}

void print(int margin, double total_mib, const char* setup, const Outcome& o) {
  fmt::print("{:>6}% {:>10.0f} {:<12} {:>8}/{:<5} {:>12} {:>16} {:>18.1f}\n", margin, total_mib,
             setup, o.failed_large, o.updates, o.failed_sim,
             o.min_largest_free < 0 ? std::string("unknown")
                                    : fmt::format("{:.1f}", o.min_largest_free / double(1 << 20)),
             static_cast<double>(o.peak_reserved) / (1 << 20));
}

}  // namespace

// What one part of the pattern needs on its own: the peak reserved of its replays in a pool
// with room to spare.
Expected<size_t> need_of(const MemoryPattern& p, bool sim) {
  size_t need = 0;
  for (int seed = 1; seed <= p.seeds; ++seed) {
    auto roomy = gpu::make_pool(p.kind, sim ? "sim" : "model", size_t{8} << 30, size_t{8} << 30);
    if (!roomy) return roomy.error();
    const auto o = sim ? replay(p, static_cast<uint64_t>(seed), roomy->get(), nullptr)
                       : replay(p, static_cast<uint64_t>(seed), nullptr, roomy->get());
    need = std::max(need, o.peak_reserved);
  }
  return need;
}

// How many blocks the simulator asks for over all seeds (the same in every setup).
uint64_t replay_requests(const MemoryPattern& p) {
  Outcome o;
  for (int seed = 1; seed <= p.seeds; ++seed) {
    auto roomy = gpu::make_pool(gpu::PoolKind::host, "count", size_t{8} << 30);
    if (roomy) add(o, replay(p, static_cast<uint64_t>(seed), nullptr, roomy->get()));
  }
  return o.sim_requests;
}

// Both setups at one total: the dual pools get each part's need plus `margin_pct`, the single
// pool their sum. Fresh pools per seed (a pool resource keeps its chunks until it ends).
Expected<std::pair<Outcome, Outcome>> compare(const MemoryPattern& p, size_t sim_budget,
                                              size_t model_budget) {
  Outcome single, dual;
  const size_t total = sim_budget + model_budget;
  for (int seed = 1; seed <= p.seeds; ++seed) {
    auto shared = gpu::make_pool(p.kind, "shared", total, total);
    if (!shared) return shared.error();
    auto pools = gpu::MemoryPools::create({p.kind, sim_budget, model_budget, total, 0});
    if (!pools) return pools.error();
    add(single, replay(p, static_cast<uint64_t>(seed), shared->get(), shared->get()));
    add(dual,
        replay(p, static_cast<uint64_t>(seed), (*pools)->sim().get(), (*pools)->model().get()));
  }
  return std::make_pair(single, dual);
}

Expected<nlohmann::json> bench_memory(const BenchOptions& options) {
  auto p = memory_pattern(options);
  if (!p) return p.error();
  constexpr size_t MiB = size_t{1} << 20;
  auto sim_need = need_of(*p, true);
  auto model_need = need_of(*p, false);
  if (!sim_need) return sim_need.error();
  if (!model_need) return model_need.error();
  fmt::print(
      "{} pools; weights {} MiB (2 held, a 3rd at each of {} updates, {} seeds); simulator live "
      "set swinging between {} and {} MiB every {} updates (4 KiB-4 MiB blocks, {}% kept {} "
      "updates), {} allocations/frees per update\n",
      p->kind == gpu::PoolKind::cuda ? "CUDA" : "host", p->weights_mib, p->cycles, p->seeds,
      p->sim_low_mib, p->sim_high_mib, p->swing, p->long_lived_pct, p->long_lived_updates,
      p->sim_ops_per_cycle);
  fmt::print(
      "reserved by each part alone: sim {:.1f} MiB, model {:.1f} MiB; the simulator makes {} "
      "requests over all seeds\n",
      *sim_need / double(MiB), *model_need / double(MiB), replay_requests(*p));
  fmt::print(
      "dual budgets = that + margin; the single pool gets their sum (failed large: the model's "
      "weight buffers; failed sim: the simulator's blocks)\n");
  fmt::print("{:>7} {:>10} {:<12} {:>14} {:>12} {:>16} {:>18}\n", "margin", "total MiB", "setup",
             "failed large", "failed sim", "min largest free", "peak reserved MiB");
  nlohmann::json out = {{"kind", p->kind == gpu::PoolKind::cuda ? "cuda" : "host"},
                        {"weights_mib", p->weights_mib},
                        {"sim_need_mib", *sim_need / double(MiB)},
                        {"model_need_mib", *model_need / double(MiB)},
                        {"margins", nlohmann::json::array()}};
  for (int margin : {0, 2, 5}) {
    auto with_margin = [margin](size_t need) {
      return (need + need * static_cast<size_t>(margin) / 100 + MiB - 1) / MiB * MiB;
    };
    const size_t sim_budget = with_margin(*sim_need), model_budget = with_margin(*model_need);
    auto outcome = compare(*p, sim_budget, model_budget);
    if (!outcome) return outcome.error();
    const auto& [single, dual] = *outcome;
    const double total_mib = static_cast<double>(sim_budget + model_budget) / MiB;
    print(margin, total_mib, "single pool", single);
    print(margin, total_mib, "dual pools", dual);
    nlohmann::json row = {{"margin_pct", margin},
                          {"total_mib", total_mib},
                          {"sim_budget_mib", sim_budget / double(MiB)},
                          {"model_budget_mib", model_budget / double(MiB)},
                          {"single", figures(single)},
                          {"dual", figures(dual)}};
    out["margins"].push_back(row);
    if (margin != 0) continue;
    // The tightest budget leads: the figures the issue asks for.
    out["total_mib"] = total_mib;
    out["single_pool_failed_large"] = single.failed_large;
    out["dual_pool_failed_large"] = dual.failed_large;
    out["single_pool_largest_free"] = row["single"]["min_largest_free_mib"];
    out["dual_pool_largest_free"] = row["dual"]["min_largest_free_mib"];
    out["single_pool_peak_reserved"] = row["single"]["peak_reserved_mib"];
    out["dual_pool_peak_reserved"] = row["dual"]["peak_reserved_mib"];
    out["single_pool_failed_sim"] = single.failed_sim;
    out["dual_pool_failed_sim"] = dual.failed_sim;
  }
  return out;
}

}  // namespace dvla::apps
