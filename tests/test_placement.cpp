// graph.placement = auto: hwloc's view of a machine, the plan of which cores each lane's threads
// take (on synthetic machines of many sizes, and what it does with too few cores), pinning a
// thread as planned (read back from the OS), a run whose lane threads are pinned so, and the
// samplers' lower priority (graph.sampling_nice), and what the cores do together (dvla-bench).
#include "doctest_with_torch.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dvla/actors/graph/graph.hpp>
#include <dvla/actors/graph/training.hpp>
#include <dvla/envs/cartpole.hpp>
#include <dvla/envs/env_decorator.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/learners/builtin_algorithms.hpp>
#include <dvla/runtime/learners/learner_algorithm.hpp>
#include <dvla/runtime/platform/machine_topology.hpp>
#include <dvla/runtime/platform/numa_memory.hpp>
#include <dvla/runtime/platform/parallel_capacity.hpp>
#include <dvla/runtime/platform/placement.hpp>
#include <dvla/runtime/platform/placement_report.hpp>
#include <dvla/runtime/platform/thread_pinning.hpp>
#include <dvla/runtime/platform/thread_priority.hpp>
#include <dvla/runtime/policies/actor_critic.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

using namespace dvla;

namespace {

MachineTopology machine(const std::string& description) {
  auto m = MachineTopology::synthetic(description);
  REQUIRE_MESSAGE(m, m.error().message());
  return *m;
}

bool disjoint(const CpuSet& a, const CpuSet& b) {
  return std::none_of(a.begin(), a.end(),
                      [&](int pu) { return std::find(b.begin(), b.end(), pu) != b.end(); });
}

// Every set the plan gives a thread of its own, pairwise.
std::vector<CpuSet> own_sets(const Placement& p) {
  std::vector<CpuSet> sets = p.samplers;
  sets.insert(sets.end(), p.replicas.begin(), p.replicas.end());
  if (!p.trainer.empty()) sets.push_back(p.trainer);
  return sets;
}

// The nice values threads were seen running at.
struct NiceSeen {
  std::mutex mutex;
  std::set<int> values;
  void record() {
    std::lock_guard lock(mutex);
    values.insert(this_thread_nice());
  }
};

// An env batch that records the nice value of the thread that builds and steps it.
class NiceRecordingEnv final : public envs::EnvDecorator {
 public:
  NiceRecordingEnv(std::unique_ptr<envs::BatchedEnv> env, std::shared_ptr<NiceSeen> seen)
      : EnvDecorator(std::move(env)), seen_(std::move(seen)) {
    seen_->record();
  }
  void step(const float* actions) override {
    seen_->record();
    inner().step(actions);
  }

 private:
  std::shared_ptr<NiceSeen> seen_;
};

// PPO that records the nice value of the thread that makes its batches (the trainer's).
class NiceRecordingPpo final : public LearnerAlgorithm {
 public:
  NiceRecordingPpo(const Config& config, std::shared_ptr<NiceSeen> seen)
      : ppo_(make_ppo_algorithm(config)), seen_(std::move(seen)) {}
  int64_t samples(const msg::TrajectorySegment& s) const override { return ppo_->samples(s); }
  TrainingBatch make_batch(const std::vector<msg::TrajectorySegment>& segments, Policy& policy,
                           uint64_t version) override {
    seen_->record();
    return ppo_->make_batch(segments, policy, version);
  }

 private:
  std::unique_ptr<LearnerAlgorithm> ppo_;
  std::shared_ptr<NiceSeen> seen_;
};

// The nice values of the env threads and of the trainer's thread in a short CartPole run.
std::pair<std::set<int>, std::set<int>> nice_values_of_a_run(int sampling_nice) {
  Config config;
  config.run.max_env_steps = 4'000;
  config.graph.sampling_nice = sampling_nice;
  config.run.algo = "nice-recording-ppo";
  auto graph = default_graph(config);
  auto envs = std::make_shared<NiceSeen>();
  auto trainer = std::make_shared<NiceSeen>();
  auto& group = graph.env_groups.at(0);
  group.make_env = [make = group.make_env, envs](uint32_t index, size_t n) {
    return std::make_unique<NiceRecordingEnv>(make(index, n), envs);
  };
  REQUIRE(graph.learners.add("nice-recording-ppo", [trainer](const Config& c) {
    return std::make_unique<NiceRecordingPpo>(c, trainer);
  }));
  auto result = train(config, graph);
  REQUIRE_MESSAGE(result, result.error().message());
  return {envs->values, trainer->values};
}

}  // namespace

TEST_CASE("hwloc reads this machine and synthetic ones: cores, their threads and NUMA nodes") {
  auto here = MachineTopology::of_this_process();
  REQUIRE_MESSAGE(here, here.error().message());
  CHECK(!here->cores().empty());
  MESSAGE("this machine: ", here->text());
  const auto big = machine("package:2 numa:1 core:4 pu:2");
  CHECK(big.packages() == 2);
  CHECK(big.numa_nodes() == 2);
  REQUIRE(big.cores().size() == 8);
  CHECK(big.cores()[0].pus.size() == 2);
  CHECK(big.cores()[0].numa == 0);
  CHECK(big.cores()[7].numa == 1);
  CHECK(big.text() == "2 packages, 2 NUMA nodes, 8 cores (16 threads) usable");
  auto bad = MachineTopology::synthetic("cores galore");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("synthetic topology 'cores galore'") != std::string::npos);
}

TEST_CASE("enough cores: one per sampler and replica, replicas one per NUMA node, trainer the rest") {
  const auto m = machine("numa:2 core:8 pu:2");  // 16 cores, 32 threads
  const auto p = plan_placement(m, {6, 2, true});
  CHECK(p.notes.empty());
  REQUIRE(p.samplers.size() == 6);
  REQUIRE(p.replicas.size() == 2);
  CHECK(p.replica_numa == std::vector<int>{0, 1});
  const auto sets = own_sets(p);
  for (size_t i = 0; i < sets.size(); ++i)
    for (size_t j = i + 1; j < sets.size(); ++j) CHECK(disjoint(sets[i], sets[j]));
  for (const auto& s : p.samplers) CHECK(s.size() == 2);  // a core: both its hardware threads
  CHECK(p.trainer.size() == 2 * (16 - 8));                  // the cores left
  CHECK(p.distributor == p.trainer);
  CHECK(p.text().find("inference 1: ") != std::string::npos);
  // A node (no trainer): the distributor works beside the replicas it fills.
  const auto node = plan_placement(m, {4, 2, false});
  CHECK(node.trainer.empty());
  CHECK(node.distributor.size() == 4);
}

TEST_CASE("too few cores: lanes get groups of cores, and the plan says so") {
  SUBCASE("8 cores for 8 samplers, 2 replicas and a trainer") {
    const auto p = plan_placement(machine("core:8 pu:1"), {8, 2, true});
    REQUIRE(p.notes.size() == 1);
    CHECK(p.notes[0].find("each lane's threads share a group of cores") != std::string::npos);
    CHECK(disjoint(p.samplers[0], p.replicas[0]));
    CHECK(disjoint(p.samplers[0], p.trainer));
    CHECK(disjoint(p.replicas[0], p.trainer));
    CHECK(p.samplers[0] == p.samplers[7]);  // the samplers share theirs
    CHECK(p.samplers[0].size() + p.replicas[0].size() + p.trainer.size() == 8);
  }
  SUBCASE("2 cores (this VM, CI): samplers and inference share one, training has the other") {
    const auto p = plan_placement(machine("core:2 pu:1"), {2, 1, true});
    REQUIRE(p.notes.size() == 1);
    CHECK(p.notes[0] == "2 cores for 3 lanes: samplers and inference share one core, training "
                        "has its own");
    CHECK(p.samplers[0] == CpuSet{0});
    CHECK(p.replicas[0] == CpuSet{0});
    CHECK(p.trainer == CpuSet{1});
  }
  SUBCASE("sync mode, too few cores: the lanes take turns, each may use every core") {
    PlacementRequest sync{2, 1, true};
    sync.lanes_take_turns = true;
    const auto p = plan_placement(machine("core:2 pu:1"), sync);
    CHECK_FALSE(p.pinned());
    CHECK(p.samplers.size() == 2);
    CHECK(p.notes[0] ==
          "2 cores for 4 threads whose lanes take turns (sync): each lane's turn may "
          "use every core, placement left to the OS");
    // With a core for each thread, sync is pinned as async is.
    CHECK(plan_placement(machine("core:8 pu:1"), sync).pinned());
  }
  SUBCASE("one core: nothing pinned") {
    const auto p = plan_placement(machine("core:1 pu:2"), {2, 1, true});
    CHECK_FALSE(p.pinned());
    CHECK(p.notes[0] == "one core: nothing to separate, placement left to the OS");
  }
}

TEST_CASE("a pinned thread runs where it was pinned, as the OS reports it") {
  cpu_set_t process;
  REQUIRE(sched_getaffinity(0, sizeof process, &process) == 0);
  int first = 0;
  while (!CPU_ISSET(first, &process)) ++first;
  auto report = std::make_shared<PlacementReport>("test", "test plan");
  std::string status;
  std::thread worker([&] {
    apply_placement({{first}, report}, "pinned/thread");
    // What the kernel says about this thread (not what the call returned).
    std::ifstream in("/proc/self/task/" + std::to_string(syscall(SYS_gettid)) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Cpus_allowed_list:", 0) == 0) status = line;
  });
  worker.join();
  CHECK(status == "Cpus_allowed_list:\t" + std::to_string(first));
  const auto threads = report->threads();
  REQUIRE(threads.size() == 1);
  CHECK(threads[0].actor == "pinned/thread");
  CHECK(threads[0].planned == CpuSet{first});
  CHECK(threads[0].applied == CpuSet{first});
  CHECK(threads[0].error.empty());
  // A hardware thread that does not exist is refused with the reason; the thread runs on.
  std::string error;
  std::thread refused([&] { error = pin_this_thread({CPU_SETSIZE + 1}, "nowhere").error().message(); });
  refused.join();
  CHECK(error == "cannot pin 'nowhere' to hardware thread " + std::to_string(CPU_SETSIZE + 1));
  CHECK(cpu_list({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8");
}

TEST_CASE("the parallel capacity runs a busy thread per core the caller may use, one when pinned") {
  cpu_set_t process;
  REQUIRE(sched_getaffinity(0, sizeof process, &process) == 0);
  const auto all = measure_parallel_capacity(std::chrono::milliseconds(100));
  CHECK(all.threads == CPU_COUNT(&process));
  CHECK(all.one_thread_rounds_per_s > 0);
  CHECK(all.speedup > 0);
  // Threads on distinct cores may do up to that many threads' work, never much more.
  CHECK(all.speedup < all.threads + 0.5);
  // Confined to one core, as a taskset would: one thread, nothing to compare.
  ParallelCapacity confined;
  bool pinned = false;
  std::thread worker([&] {
    int first = 0;
    while (!CPU_ISSET(first, &process)) ++first;
    pinned = static_cast<bool>(pin_this_thread({first}, "capacity/confined"));
    confined = measure_parallel_capacity(std::chrono::milliseconds(100));
  });
  worker.join();
  REQUIRE(pinned);
  CHECK(confined.threads == 1);
  CHECK(confined.speedup == 1.0);
  CHECK(confined.one_thread_rounds_per_s > 0);
  CHECK(confined.text().rfind("1 core (one thread: ", 0) == 0);
  if (all.threads > 1) CHECK(all.text().rfind(std::to_string(all.threads) + " cores: ", 0) == 0);
}

TEST_CASE("a replica's buffers bound to a NUMA node are there, and it copies versions into them") {
  auto make = [] { return make_actor_critic(envs::CartPole().spec(), {256, 256}, 1); };
  DoubleBufferedReplica replica("inference/0", make, msg::WeightsFrame());
  const int nodes = MachineTopology::of_this_process()->numa_nodes();
  // A node this machine does not have is refused by name.
  auto missing = replica.bind_to_numa_node(nodes);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() == "cannot bind memory to NUMA node " + std::to_string(nodes) +
                                         ": this machine has " + std::to_string(nodes));
  // The last node: the OS reports the buffers there (a container that forbids binding says why).
  const int last = nodes - 1;
  auto found = replica.bind_to_numa_node(last);
  if (found)
    CHECK(*found == last);
  else
    CHECK(found.error().message().find("to NUMA node " + std::to_string(last) + ": ") !=
          std::string::npos);
  // Bound, it copies a version into its own buffers instead of viewing the frame it came in.
  auto policy = make();
  FlatParameters flat(*policy);
  const auto frame = flat.to_frame(3);
  auto update = msg::read(frame);
  REQUIRE(update);
  REQUIRE(replica.stage(frame, *update));
  REQUIRE(replica.swap_in_staged());
  const auto* weights = static_cast<const std::byte*>(replica.active().parameters()[0].data_ptr());
  CHECK((weights < frame.data() || weights >= frame.data() + frame.size()));
  CHECK(at::equal(replica.active().parameters()[0].reshape(-1),
                  flat.flat().narrow(0, 0, replica.active().parameters()[0].numel())));
}

TEST_CASE("graph.placement=auto pins each lane thread as the plan says, and the status shows it") {
  Config config;
  config.run.max_env_steps = 20'000;
  config.graph.placement = PlacementMode::automatic;
  auto result = train(config, default_graph_parts(config));
  REQUIRE_MESSAGE(result, result.error().message());
  const auto& p = result->status.placement;
  MESSAGE(p.topology, ": ", p.plan);
  CHECK(p.topology.find("usable") != std::string::npos);
  std::map<std::string, ThreadPlacementRecord> threads;
  for (const auto& t : p.threads) threads[t.actor] = t;
  for (const char* actor : {"sampler/0", "sampler/1", "inference/0", "trainer", "distributor"}) {
    INFO(actor);
    REQUIRE(threads.count(actor) == 1);
    const auto& t = threads[actor];
    CHECK(t.error.empty());
    // The mask each thread read back from the OS after pinning is the plan's.
    CHECK(t.applied == t.planned);
  }
  if (std::thread::hardware_concurrency() > 1) {
    // Training never shares a core with sampling or inference (on 2 cores those two share one).
    for (int pu : threads["trainer"].planned) {
      for (const char* other : {"sampler/0", "inference/0"}) {
        const auto& set = threads[other].planned;
        CHECK(std::find(set.begin(), set.end(), pu) == set.end());
      }
    }
  }
  // In sync mode with fewer cores than lane threads, the plan pins nothing and says why.
  if (std::thread::hardware_concurrency() < 4) {
    config.run.mode = RunMode::sync;
    auto sync = train(config, default_graph_parts(config));
    REQUIRE_MESSAGE(sync, sync.error().message());
    CHECK(sync->status.placement.plan.find("take turns (sync)") != std::string::npos);
    config.run.mode = RunMode::async;
  }
  // Without it, nothing is pinned or reported.
  config.graph.placement = PlacementMode::none;
  auto plain = train(config, default_graph_parts(config));
  REQUIRE_MESSAGE(plain, plain.error().message());
  CHECK(plain->status.placement.threads.empty());
}

TEST_CASE("graph.sampling_nice runs the samplers' envs below the trainer, which keeps its nice") {
  const int here = this_thread_nice();  // the lanes' threads start at the process's value
  const auto [envs, trainer] = nice_values_of_a_run(7);
  CHECK(envs == std::set<int>{std::min(19, here + 7)});  // built and stepped niced, every time
  CHECK(trainer == std::set<int>{here});
  const auto [alike, trainer_alike] = nice_values_of_a_run(0);
  CHECK(alike == std::set<int>{here});
  CHECK(trainer_alike == std::set<int>{here});
}

TEST_CASE("lowering a thread's priority adds to its nice value, up to 19, for that thread alone") {
  const int here = this_thread_nice();
  std::thread lowering([] {  // CHECK, not REQUIRE: a throw here would end the test binary
    const int start = this_thread_nice();
    CHECK(lower_this_thread_priority(3));
    CHECK(this_thread_nice() == std::min(19, start + 3));
    CHECK(lower_this_thread_priority(19));
    CHECK(this_thread_nice() == 19);
    CHECK(lower_this_thread_priority(0));
    CHECK(this_thread_nice() == 19);
    CHECK(lower_this_thread_priority(20).error().message() ==
          "a thread's priority is lowered by 0 to 19 nice steps, not 20");
  });
  lowering.join();
  CHECK(this_thread_nice() == here);
}
