// A node process of `dvla-bench replication`: REPLICAS replicas of the synthetic policy fed by
// DISTRIBUTORS distributors (one per replica in mode a, else one), which publish the first one on
// 127.0.0.1 and attach under the distributor at PARENT_PORT; the first one relays to the nodes
// below it at most UPLINK_MIB_S (0: no cap). A thread plays inference: it swaps
// staged versions in, and prints "swapped VERSION NANOSECONDS" (steady clock: one machine, one
// clock) once every replica acts with a version. Serves until its stdin closes.
#include <unistd.h>
#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/distribution/distributor.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>
#include "dvla-bench/replication_setup.hpp"

namespace dvla::apps::replication {
namespace {

struct WorkerArgs {
  std::string name;
  uint64_t params = 0;
  int replicas = 1, distributors = 1;
  uint16_t parent_port = 0;
  size_t chunk_bytes = 0;
  double uplink_mib_s = 0;
};

// Swaps staged versions in until `stop`; prints each version once all replicas act with it.
void play_inference(const std::vector<std::shared_ptr<DoubleBufferedReplica>>& replicas,
                    const std::atomic<bool>& stop) {
  uint64_t printed = 0;
  while (!stop) {
    uint64_t oldest = UINT64_MAX;
    for (const auto& r : replicas) {
      r->swap_in_staged();
      oldest = std::min(oldest, r->active_version());
    }
    if (oldest > printed) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
      std::printf("swapped %llu %lld\n", static_cast<unsigned long long>(oldest),
                  static_cast<long long>(ns));
      std::fflush(stdout);
      printed = oldest;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

int serve(const WorkerArgs& a) {
  actors::PlaneSystems planes(true, 1);
  const auto make = [params = a.params] { return synthetic_policy(params); };
  std::vector<std::shared_ptr<DoubleBufferedReplica>> replicas;
  for (int r = 0; r < a.replicas; ++r)
    replicas.push_back(std::make_shared<DoubleBufferedReplica>(
        a.name + "/" + std::to_string(r), make, msg::WeightsFrame()));
  std::vector<actors::distributor_actor> distributors;
  const int per = a.replicas / a.distributors;
  for (int d = 0; d < a.distributors; ++d) {
    actors::DistributorSetup setup;
    setup.name = a.name + "/distributor/" + std::to_string(d);
    setup.replicas.assign(replicas.begin() + d * per, replicas.begin() + (d + 1) * per);
    setup.chunk_bytes = a.chunk_bytes;
    setup.uplink_bytes_per_s = a.uplink_mib_s * 1048576;
    setup.timeout_s = 600;
    distributors.push_back(actors::spawn_distributor(planes.weights(), setup));
  }
  auto port = planes.publish(distributors.front(), "127.0.0.1", 0);
  auto parent =
      planes.connect<actors::distributor_actor>(planes.weights(), "127.0.0.1", a.parent_port);
  if (!port || !parent) {
    std::cerr << "dvla-bench replication-worker " << a.name << ": "
              << (port ? parent.error().message() : port.error().message()) << "\n";
    return 1;
  }
  caf::scoped_actor self{planes.weights()};
  for (const auto& d : distributors)  // their chunks come from the parent's process
    self->send(d, actors::parent_atom::value, parent->node());
  for (size_t d = 0; d < distributors.size(); ++d)  // answered with the first version: not awaited
    self->send(*parent, actors::attach_atom::value, a.name + "/" + std::to_string(d),
               caf::actor_cast<caf::actor>(distributors[d]));
  std::printf("port %u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  std::atomic<bool> stop{false};
  std::thread inference(play_inference, std::cref(replicas), std::cref(stop));
  for (std::string line; std::getline(std::cin, line);) {
  }
  stop = true;
  inference.join();
  for (auto& d : distributors) self->send_exit(d, caf::exit_reason::user_shutdown);
  return 0;
}

}  // namespace

int run_worker(int argc, char** argv) {
  alarm(3600);  // never outlive a benchmark that forgot us
  if (argc != 9) {
    std::cerr << "usage: dvla-bench replication-worker NAME PARAMS REPLICAS DISTRIBUTORS "
                 "PARENT_PORT CHUNK_BYTES UPLINK_MIB_S\n";
    return 2;
  }
  WorkerArgs a;
  try {
    a.name = argv[2];
    a.params = std::stoull(argv[3]);
    a.replicas = std::stoi(argv[4]);
    a.distributors = std::stoi(argv[5]);
    a.parent_port = static_cast<uint16_t>(std::stoi(argv[6]));
    a.chunk_bytes = std::stoull(argv[7]);
    a.uplink_mib_s = std::stod(argv[8]);
  } catch (const std::exception&) {
    std::cerr << "dvla-bench replication-worker: arguments must be numbers\n";
    return 2;
  }
  if (a.distributors < 1 || a.replicas % a.distributors != 0) {
    std::cerr << "dvla-bench replication-worker: DISTRIBUTORS must divide REPLICAS\n";
    return 2;
  }
  try {
    return serve(a);
  } catch (const std::exception& e) {
    std::cerr << "dvla-bench replication-worker " << a.name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace dvla::apps::replication
