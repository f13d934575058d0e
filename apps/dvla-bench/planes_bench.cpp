// dvla-bench planes: does a control round trip keep its idle latency under a data-plane flood?
// The coordinator (this process) hosts the sink (a trainer kept saturated) and pings; a worker
// process hosts the sources that flood the sink with segments over CAF's middleman on 127.0.0.1.
// Each plane layout (planes_actors.hpp) is measured in turn: round trips from the coordinator to
// every control endpoint (the worker's and the sink's) and back, first idle, then under the
// flood, and the flood's throughput.
#include <fmt/core.h>
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include <dvla/actors/control/control_endpoint.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/control_command.hpp>
#include "dvla-bench/bench.hpp"
#include "dvla-bench/child_process.hpp"
#include "dvla-bench/planes_actors.hpp"
#include "dvla-bench/suite_settings.hpp"

namespace dvla::apps {
namespace {

using namespace planes;

struct FloodSetup {
  int sources = 4;
  int credits = 4;  // segments in flight per source
  size_t segment_bytes = 1 << 20;
  int64_t work_us = 2000;     // the sink's CPU per segment
  int rounds = 50;            // control round trips per phase
  int64_t round_gap_ms = 20;  // between round trips
  double warmup_s = 0.5;      // of the flood, before its round trips
};

Expected<FloodSetup> flood_setup(const BenchOptions& options) {
  FloodSetup f;
  auto count = [](int& field) { return [&field](int64_t x) { field = static_cast<int>(x); }; };
  auto set = apply_whole_settings(
      options.settings,
      {{"sources", count(f.sources)},
       {"credits", count(f.credits)},
       {"segment_kib", [&f](int64_t x) { f.segment_bytes = static_cast<size_t>(x) * 1024; }},
       {"work_us", [&f](int64_t x) { f.work_us = x; }},
       {"rounds", count(f.rounds)}});
  if (!set) return set.error();
  return f;
}

struct Percentiles {
  double p50 = 0, p90 = 0, max = 0;
};

Percentiles percentiles(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  auto at = [&](double q) {
    return us[static_cast<size_t>(q * static_cast<double>(us.size() - 1))];
  };
  return {at(0.5), at(0.9), us.back()};
}

// Round trips to every target at once, `rounds` times: microseconds from sending the first
// command to receiving the last acknowledgement.
Expected<std::vector<double>> round_trips(caf::scoped_actor& self,
                                          const std::vector<caf::actor>& targets,
                                          const FloodSetup& f) {
  std::vector<double> us;
  for (int r = 0; r < f.rounds; ++r) {
    const auto frame = msg::build(msg::ControlCommand{msg::Command::ping, uint64_t(r), {}});
    const auto start = std::chrono::steady_clock::now();
    using Handle = decltype(self->request(targets[0], caf::infinite, frame));
    std::vector<Handle> pending;
    for (const auto& t : targets)
      pending.push_back(self->request(t, std::chrono::seconds(30), frame));
    std::string failure;
    for (auto& h : pending)
      h.receive([](uint64_t, int64_t) {},
                [&](const caf::error& e) { failure = actors::describe(e); });
    if (!failure.empty()) return Error("a control endpoint did not acknowledge: " + failure);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                     .count());
    std::this_thread::sleep_for(std::chrono::milliseconds(f.round_gap_ms));
  }
  return us;
}

Expected<caf::actor> connect(caf::actor_system& system, uint16_t port) {
  auto remote = system.middleman().remote_actor("127.0.0.1", port);
  if (!remote)
    return Error("cannot reach the worker on port " + std::to_string(port) + ": " +
                 system.render(remote.error()));
  return *remote;
}

Expected<nlohmann::json> measure(Layout layout, const FloodSetup& f) {
  auto systems = make_systems(layout);
  auto counters = std::make_shared<SinkCounters>();
  auto track = std::make_shared<LaneTrack>("sink", Lane::training, false);
  auto sink = spawn_sink(systems->data(), f.work_us, counters, track);
  caf::actor sink_endpoint = sink;
  if (layout != Layout::mailbox) {
    actors::ControlEndpointSetup e;
    e.name = "sink";
    e.data_actor = sink;
    e.track = track;
    sink_endpoint =
        caf::actor_cast<caf::actor>(actors::spawn_control_endpoint(systems->control(), e));
  }
  auto stop = [&] {
    caf::anon_send_exit(sink_endpoint, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
  };
  ChildProcess worker("/proc/self/exe",
                      {"planes-worker", name(layout), std::to_string(f.sources),
                       std::to_string(f.credits), std::to_string(f.segment_bytes)});
  auto ports = worker.read_line();
  if (!ports) return (stop(), ports.error());
  unsigned data_port = 0, control_port = 0;
  std::istringstream(*ports) >> data_port >> control_port;
  auto data_registry = connect(systems->data(), static_cast<uint16_t>(data_port));
  auto control_registry = connect(systems->control(), static_cast<uint16_t>(control_port));
  if (!data_registry || !control_registry)
    return (stop(), data_registry ? control_registry.error() : data_registry.error());

  caf::scoped_actor self{systems->control()};
  std::vector<caf::actor> targets;
  self->request(*control_registry, std::chrono::seconds(30), endpoints_atom::value)
      .receive([&](const std::vector<caf::actor>& e) { targets = e; }, [&](const caf::error&) {});
  if (targets.empty()) return (stop(), Error("the worker named no control endpoints"));
  targets.push_back(sink_endpoint);

  auto idle = round_trips(self, targets, f);
  if (!idle) return (stop(), idle.error());
  caf::anon_send(*data_registry, flood_atom::value, sink);
  std::this_thread::sleep_for(std::chrono::duration<double>(f.warmup_s));
  const uint64_t bytes_before = counters->bytes;
  const int64_t busy_before = track->busy_ns(Lane::training);
  const auto started = std::chrono::steady_clock::now();
  auto flooded = round_trips(self, targets, f);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double mb_per_s = static_cast<double>(counters->bytes - bytes_before) / seconds / 1e6;
  const double sink_busy =
      static_cast<double>(track->busy_ns(Lane::training) - busy_before) * 1e-9 / seconds;
  stop();
  if (!flooded) return flooded.error();
  const auto i = percentiles(*idle), d = percentiles(*flooded);
  fmt::print("{:<8} {:>9.0f} {:>9.0f} {:>10.0f} {:>10.0f} {:>10.0f} {:>7.1f}x {:>9.0f} {:>8.0f}%\n",
             name(layout), i.p50, i.p90, d.p50, d.p90, d.max, d.p50 / i.p50, mb_per_s,
             100 * sink_busy);
  return nlohmann::json{{"idle_rtt_us_p50", i.p50},
                        {"idle_rtt_us_p90", i.p90},
                        {"flood_rtt_us_p50", d.p50},
                        {"flood_rtt_us_p90", d.p90},
                        {"flood_rtt_us_max", d.max},
                        {"flood_over_idle_p50", d.p50 / i.p50},
                        {"flood_over_idle_p90", d.p90 / i.p90},
                        {"flood_mb_per_s", mb_per_s},
                        {"sink_busy_fraction", sink_busy},
                        {"endpoints", targets.size()}};
}

}  // namespace

Expected<nlohmann::json> bench_planes(const BenchOptions& options) {
  auto f = flood_setup(options);
  if (!f) return f.error();
  fmt::print(
      "control round trips (coordinator -> {} endpoints -> ack), idle and under a flood of "
      "{} sources x {} segments of {} KiB in flight to a sink that spends {} us on each\n",
      f->sources + 1, f->sources, f->credits, f->segment_bytes / 1024, f->work_us);
  fmt::print("{:<8} {:>9} {:>9} {:>10} {:>10} {:>10} {:>8} {:>9} {:>9}\n", "layout", "idle p50",
             "idle p90", "flood p50", "flood p90", "flood max", "p50 x", "MB/s", "sink busy");
  nlohmann::json out;
  for (auto layout : {Layout::split, Layout::shared, Layout::mailbox}) {
    auto figures = measure(layout, *f);
    if (!figures) return Error(std::string(name(layout)) + ": " + figures.error().message());
    out["layouts"][name(layout)] = *figures;
  }
  fmt::print("(round trips in us; p50 x: flood p50 over idle p50)\n");
  for (const char* l : {"split", "shared", "mailbox"})
    out[std::string(l) + "_flood_over_idle"] = out["layouts"][l]["flood_over_idle_p50"];
  out["sources"] = f->sources;
  out["credits"] = f->credits;
  out["segment_bytes"] = f->segment_bytes;
  out["sink_work_us"] = f->work_us;
  return out;
}

}  // namespace dvla::apps
