// dvla-bench replication: how a weight version reaches every inference replica of a cluster on
// this machine. The learner (this process) publishes a version of a synthetic policy (25M and
// 100M parameters) to node processes on 127.0.0.1 (1, 2, 4, 8 nodes; 1 and 4 replicas each):
//   (a) one copy per replica from the learner — the baseline;
//   (b) once per node, the node's distributor fanning out to its replicas;
//   (c) the relay tree (distribution.fanout, default 2 here), chunks relayed as they arrive.
// On one machine every process shares the same cores and memory bandwidth, not a network: with
// --set uplink_mib_s=N each process (the learner, each relay) sends at most N MiB/s, as over a
// link of that speed (distribution.uplink_mib_s).
// For each: the bytes the learner sent per version (the whole versions its distributor delivered,
// as its delivery reports count them) and the time from publish to the last replica acting with
// it (the median over the versions). Then, in this process: staging one version into 1 and 4
// replicas against one memcpy of its buffer.
#include <fmt/core.h>
#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/distribution/distributor.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/runtime/distribution/relay_tree.hpp>
#include <dvla/runtime/progress/progress_meter.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/child_process.hpp"
#include "dvla-bench/replication_setup.hpp"
#include "dvla-bench/suite_settings.hpp"

namespace dvla::apps {
namespace {

using namespace replication;
using Clock = std::chrono::steady_clock;

struct ReplicationSetup {
  std::vector<uint64_t> params = {25'000'000, 100'000'000};
  std::vector<int> nodes = {1, 2, 4, 8};
  std::vector<int> replicas = {1, 4};
  int versions = 3;
  int fanout = 2;
  size_t chunk_bytes = size_t{4} << 20;
  int64_t uplink_mib_s = 0;  // per process (the learner and each relay): emulates a link; 0: none
  double memory_share = 0.6;  // of this machine's memory a configuration may plan to use
};

struct Figures {
  double seconds = 0;        // publish to the last replica swapped: median over the versions
  double learner_mb = 0;     // sent by the learner per version
  double copies = 0;         // learner_mb over one version's size
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

double machine_mib() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         1048576.0;
}

// What a configuration holds at once, MiB: per replica two buffers; per node distributor the
// version put together, the one it keeps and its chunks (for relaying); the learner the policy,
// the frame and its chunks.
double planned_mib(uint64_t params, int nodes, int replicas, Mode mode) {
  const double version = static_cast<double>(params) * 4 / 1048576.0;
  const int distributors = mode == Mode::per_replica ? replicas : 1;
  return nodes * (2.0 * replicas + 3.0 * distributors) * version + 3 * version;
}

// The parent port of each node (in the order started): the learner's for (a) and (b); for (c) the
// relay tree's, breadth first.
uint16_t parent_port(Mode mode, int node, RelayTree& tree, uint16_t learner,
                     const std::vector<uint16_t>& ports) {
  if (mode != Mode::tree) return learner;
  const uint32_t parent = tree.add(static_cast<uint32_t>(node + 1));
  return parent == RelayTree::root ? learner : ports.at(parent - 1);
}

Expected<Figures> run_one(const ReplicationSetup& c, uint64_t params, int nodes, int replicas,
                          Mode mode) {
  actors::PlaneSystems planes(true, 2);
  caf::scoped_actor reports{planes.weights()};  // the learner distributor's delivery reports
  actors::DistributorSetup root;
  root.name = "learner";
  root.chunk_bytes = c.chunk_bytes;
  root.uplink_bytes_per_s = static_cast<double>(c.uplink_mib_s) * 1048576;
  root.timeout_s = 600;
  root.supervisor = caf::actor_cast<caf::actor>(reports);
  auto learner = actors::spawn_distributor(planes.weights(), root);
  auto port = planes.publish(learner, "127.0.0.1", 0);
  if (!port) return port.error();
  RelayTree tree(c.fanout);
  std::vector<uint16_t> ports;
  std::vector<std::unique_ptr<ChildProcess>> workers;
  const int distributors = mode == Mode::per_replica ? replicas : 1;
  for (int n = 0; n < nodes; ++n) {
    const auto parent = parent_port(mode, n, tree, *port, ports);
    workers.push_back(std::make_unique<ChildProcess>(
        sibling("dvla-bench"),
        std::vector<std::string>{"replication-worker", "node-" + std::to_string(n + 1),
                                 std::to_string(params), std::to_string(replicas),
                                 std::to_string(distributors), std::to_string(parent),
                                 std::to_string(c.chunk_bytes), std::to_string(c.uplink_mib_s)}));
    auto line = workers.back()->read_line();
    if (!line || line->rfind("port ", 0) != 0)
      return Error("node " + std::to_string(n + 1) + " did not start");
    ports.push_back(static_cast<uint16_t>(std::stoi(line->substr(5))));
  }
  // Every distributor attached (downstream of the learner: its count; the rest below relays).
  const size_t attached = mode == Mode::tree ? tree.children(RelayTree::root).size()
                                             : static_cast<size_t>(nodes * distributors);
  auto policy = synthetic_policy(params);
  FlatParameters flat(*policy);
  std::vector<double> seconds;
  double learner_bytes = 0, version_bytes = 0;
  caf::scoped_actor self{planes.weights()};
  for (int v = 1; v <= c.versions; ++v) {
    const auto frame = flat.to_frame(static_cast<uint64_t>(v));
    version_bytes = static_cast<double>(frame.size());
    if (v == 1) std::this_thread::sleep_for(std::chrono::milliseconds(500));  // attaches land
    const int64_t published = now_ns();
    bool ok = true;
    self->request(learner, std::chrono::seconds(600), frame)
        .receive([](uint64_t) {}, [&](const caf::error&) { ok = false; });
    if (!ok) return Error("the learner's distributor refused version " + std::to_string(v));
    int64_t last = published;
    for (auto& w : workers) {
      for (;;) {
        auto line = w->read_line();
        if (!line) return Error("a node ended during version " + std::to_string(v));
        unsigned long long version = 0;
        long long ns = 0;
        if (std::sscanf(line->c_str(), "swapped %llu %lld", &version, &ns) == 2 &&
            version >= static_cast<unsigned long long>(v)) {
          last = std::max<int64_t>(last, ns);
          break;
        }
      }
    }
    seconds.push_back(static_cast<double>(last - published) / 1e9);
    // The learner's deliveries of this version: one per distributor attached to it.
    size_t delivered = 0;
    double bytes = 0;
    while (delivered < attached) {
      bool got = false;
      reports->receive(
          [&](actors::delivered_atom, const std::string&, uint64_t version, uint64_t b) {
            got = true;
            if (version != static_cast<uint64_t>(v)) return;
            ++delivered;
            bytes += static_cast<double>(b);
          },
          caf::after(std::chrono::seconds(60)) >> [] {});
      if (!got) return Error("the learner's delivery reports did not come");
    }
    learner_bytes = bytes;
  }
  workers.clear();  // closes their stdin: they end
  self->send_exit(learner, caf::exit_reason::user_shutdown);
  std::sort(seconds.begin(), seconds.end());
  Figures f;
  f.seconds = seconds[seconds.size() / 2];
  f.learner_mb = learner_bytes / 1e6;
  f.copies = learner_bytes / version_bytes;
  return f;
}

// In this process: one version staged into `replicas` replicas by a distributor, seconds (the
// median of three).
double local_fan_out_s(uint64_t params, int replicas) {
  actors::PlaneSystems planes(false, 2);
  actors::DistributorSetup d;
  for (int r = 0; r < replicas; ++r)
    d.replicas.push_back(std::make_shared<DoubleBufferedReplica>(
        "replica/" + std::to_string(r), [params] { return synthetic_policy(params); },
        msg::WeightsFrame()));
  auto distributor = actors::spawn_distributor(planes.data(), d);
  auto policy = synthetic_policy(params);
  FlatParameters flat(*policy);
  caf::scoped_actor self{planes.data()};
  std::vector<double> s;
  for (uint64_t v = 1; v <= 3; ++v) {
    const auto frame = flat.to_frame(v);
    const auto t0 = Clock::now();
    self->request(distributor, std::chrono::seconds(600), frame)
        .receive([](uint64_t) {}, [](const caf::error&) {});
    s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  self->send_exit(distributor, caf::exit_reason::user_shutdown);
  std::sort(s.begin(), s.end());
  return s[1];
}

// One memcpy of `bytes` (warm: the pages are touched first), seconds (the best of three).
double memcpy_s(size_t bytes) {
  std::vector<char> from(bytes, 1), to(bytes, 0);
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = Clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

Expected<nlohmann::json> bench_replication(const BenchOptions& options) {
  ReplicationSetup c;
  int64_t only_params_m = 0, only_replicas = 0, max_nodes = 8, chunk_kib = 4096;
  auto applied = apply_whole_settings(
      options.settings, {{"params_m", [&](int64_t v) { only_params_m = v; }},
                         {"replicas", [&](int64_t v) { only_replicas = v; }},
                         {"nodes", [&](int64_t v) { max_nodes = v; }},
                         {"versions", [&](int64_t v) { c.versions = static_cast<int>(v); }},
                         {"fanout", [&](int64_t v) { c.fanout = static_cast<int>(v); }},
                         {"chunk_kib", [&](int64_t v) { chunk_kib = v; }},
                         {"uplink_mib_s", [&](int64_t v) { c.uplink_mib_s = v; }}});
  if (!applied) return applied.error();
  if (only_params_m > 0) c.params = {static_cast<uint64_t>(only_params_m) * 1'000'000};
  if (only_replicas > 0) c.replicas = {static_cast<int>(only_replicas)};
  c.nodes.erase(std::remove_if(c.nodes.begin(), c.nodes.end(),
                               [&](int n) { return n > max_nodes; }),
                c.nodes.end());
  c.chunk_bytes = static_cast<size_t>(chunk_kib) * 1024;
  const double budget = machine_mib() * c.memory_share;
  fmt::print(
      "replication on 127.0.0.1: the learner publishes {} versions to N node processes; fanout "
      "{} for the tree, chunks of {} KiB, uplink per process {}; {} cores, {:.0f} MiB for a "
      "configuration\n",
      c.versions, c.fanout, chunk_kib,
      c.uplink_mib_s > 0 ? std::to_string(c.uplink_mib_s) + " MiB/s" : std::string("not capped"),
      sysconf(_SC_NPROCESSORS_ONLN), budget);
  fmt::print("{:>7} {:>5} {:>8} {:<13} {:>14} {:>7} {:>10} {:>9}\n", "params", "nodes",
             "replicas", "mode", "learner MB/v", "copies", "to last s", "x 1 node");
  nlohmann::json out;
  ProgressMeter meter({"replication:", "configurations",
                       c.params.size() * c.replicas.size() * 3 * c.nodes.size()});
  uint64_t configurations = 0;
  for (uint64_t params : c.params) {
    const auto p = std::to_string(params / 1'000'000) + "M";
    for (int replicas : c.replicas) {
      for (Mode mode : {Mode::per_replica, Mode::per_node, Mode::tree}) {
        double one_node = 0;
        for (int nodes : c.nodes) {
          const double need = planned_mib(params, nodes, replicas, mode);
          auto& j = out["configurations"][p][std::to_string(replicas) + " replicas"]
                       [mode_name(mode)][std::to_string(nodes) + " nodes"];
          meter.update(configurations++);
          if (need > budget) {
            meter.note(fmt::format("{:>7} {:>5} {:>8} {:<13} skipped: needs about {:.0f} MiB", p,
                                   nodes, replicas, mode_name(mode), need));
            j = {{"skipped", "needs about " + std::to_string(static_cast<int>(need)) + " MiB"}};
            continue;
          }
          auto f = run_one(c, params, nodes, replicas, mode);
          if (!f)
            return f.error().within(fmt::format("{} params, {} nodes, {} replicas, {}", p, nodes,
                                                replicas, mode_name(mode)));
          if (nodes == 1) one_node = f->seconds;
          const double ratio = one_node > 0 ? f->seconds / one_node : 0;
          meter.note(fmt::format("{:>7} {:>5} {:>8} {:<13} {:>14.1f} {:>7.1f} {:>10.3f} {:>8.2f}x",
                                 p, nodes, replicas, mode_name(mode), f->learner_mb, f->copies,
                                 f->seconds, ratio));
          j = {{"learner_mb_per_version", f->learner_mb},
               {"learner_copies_per_version", f->copies},
               {"seconds_to_last_replica", f->seconds},
               {"over_one_node", ratio}};
        }
      }
    }
  }
  meter.update(configurations);
  meter.finish();
  fmt::print("\nlocal fan-out in one process (a distributor staging into its replicas):\n");
  fmt::print("{:>7} {:>12} {:>14} {:>14} {:>10}\n", "params", "memcpy s", "1 replica s",
             "4 replicas s", "4 / memcpy");
  for (uint64_t params : c.params) {
    const auto p = std::to_string(params / 1'000'000) + "M";
    FlatParameters flat(*synthetic_policy(params));
    const double copy = memcpy_s(flat.to_frame(0).size());
    const double one = local_fan_out_s(params, 1), four = local_fan_out_s(params, 4);
    fmt::print("{:>7} {:>12.3f} {:>14.3f} {:>14.3f} {:>9.2f}x\n", p, copy, one, four,
               four / copy);
    out["local_fan_out"][p] = {{"memcpy_s", copy},
                               {"one_replica_s", one},
                               {"four_replicas_s", four},
                               {"four_over_memcpy", four / copy}};
  }
  return out;
}

}  // namespace dvla::apps
