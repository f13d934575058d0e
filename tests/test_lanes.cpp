// The plain pieces of the Swimlane's bookkeeping: lock-step rounds, lane tracks and reports, the
// ideal speedup, and the trace format.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <dvla/core/cpu_clock.hpp>
#include <dvla/runtime/lanes/lane_tracer.hpp>
#include <dvla/runtime/lanes/lock_step.hpp>
#include <dvla/runtime/run/progress_watchdog.hpp>
#include <dvla/runtime/versions/policy_lag.hpp>

using namespace dvla;

TEST_CASE("a lock-step round completes once every sampler still collecting waits") {
  LockStep round(3);
  CHECK_FALSE(round.round_complete());  // nobody waits yet
  round.waiting(0, false);
  round.waiting(2, false);
  CHECK_FALSE(round.round_complete());
  round.waiting(2, false);  // the same sampler twice counts once
  CHECK_FALSE(round.round_complete());
  round.waiting(1, true);  // its last segment
  CHECK(round.round_complete());
  round.release();
  CHECK(round.collecting() == 2);
  CHECK(round.waiting_count() == 0);
  round.waiting(0, false);
  CHECK_FALSE(round.round_complete());
  round.waiting(2, true);
  CHECK(round.round_complete());
  round.release();
  round.waiting(0, true);
  CHECK(round.round_complete());  // the last one collecting
  round.release();
  CHECK(round.collecting() == 0);
  CHECK_FALSE(round.round_complete());
}

TEST_CASE("a sampler that leaves without a last segment no longer holds up the round") {
  LockStep round(3);
  round.waiting(0, false);
  round.waiting(2, false);
  CHECK_FALSE(round.round_complete());
  round.leave(1);  // a stage dropped sampler 1's final segment
  CHECK(round.collecting() == 2);
  CHECK(round.round_complete());
  round.release();
  round.leave(0);
  round.waiting(2, true);
  CHECK(round.round_complete());
  round.release();
  CHECK(round.collecting() == 0);
}

TEST_CASE("a track sums work per lane, keeps waits out of it, and remembers the deepest queue") {
  LaneTrack t("inference/0", Lane::inference, /*record_spans=*/true);
  t.work(Lane::inference, "forward", 100, 350);
  t.work(Lane::inference, "forward", 400, 500);
  t.work(Lane::distribution, "stage_weights", 600, 620);
  t.wait("wait_actions", 0, 1000);
  t.queue_depth(3);
  t.queue_depth(1);
  CHECK(t.busy_ns(Lane::inference) == 350);
  CHECK(t.busy_ns(Lane::distribution) == 20);
  CHECK(t.busy_ns(Lane::sampling) == 0);
  CHECK(t.queue_peak() == 3);
  const auto by_name = t.work_by_name();
  REQUIRE(by_name.size() == 2);
  CHECK(by_name[0] == std::pair<std::string, int64_t>{"forward", 350});
  CHECK(by_name[1] == std::pair<std::string, int64_t>{"stage_weights", 20});
  const auto spans = t.spans();
  REQUIRE(spans.size() == 4);
  CHECK(spans[3].wait);
  CHECK(spans[2].lane == Lane::distribution);

  LaneTrack capped("sampler/0", Lane::sampling, true, /*max_spans=*/2);
  for (int i = 0; i < 5; ++i) capped.work(Lane::sampling, "env_step", i, i + 1);
  CHECK(capped.spans().size() == 2);
  CHECK(capped.truncated());
  CHECK(capped.busy_ns(Lane::sampling) == 5);  // totals go on without the spans

  // CPU time of other threads (an env's workers) adds to the lane it is counted in.
  LaneTrack helped("sampler/1", Lane::sampling, false);
  helped.add_cpu(Lane::sampling, 4'000'000);
  helped.add_cpu(Lane::sampling, 1'000'000);
  CHECK(helped.cpu_ns(Lane::sampling) == 5'000'000);  // no span of its own yet: theirs alone
  helped.work(Lane::sampling, "env_step", 0, 10);
  CHECK(helped.cpu_ns(Lane::sampling) >= 5'000'000);
  CHECK(helped.cpu_ns(Lane::inference) == 0);

  LaneTrack unrecorded("trainer", Lane::training, false);
  unrecorded.work(Lane::training, "gradient_step", 0, 10);
  CHECK(unrecorded.spans().empty());
  CHECK(unrecorded.busy_ns(Lane::training) == 10);
}

TEST_CASE("the watchdog's view: who is in the middle of a piece of work, who waits, how long") {
  LaneTracer tracer(false);
  const int64_t s = 1'000'000'000;
  const int64_t t0 = trace_clock_ns();
  auto sampler = tracer.track("sampler/0", Lane::sampling);
  auto replica = tracer.track("inference/0", Lane::inference);
  auto trainer = tracer.track("trainer", Lane::training);
  sampler->work(Lane::sampling, "env_step", t0, t0 + 1);
  sampler->begin_work("env_step", t0 + 2);  // and never ends
  sampler->begin_work("ship_segment", t0 + 3);  // an inner span: the outer one is named
  replica->work(Lane::inference, "forward", t0, t0 + s);  // then waits
  trainer->begin_work("gradient_step", t0);
  trainer->work(Lane::training, "gradient_step", t0, t0 + 5 * s);  // ended: it waits since
  CHECK(sampler->in_progress().name == std::string("env_step"));
  CHECK(trainer->in_progress().name == nullptr);
  const auto stalled = tracer.stalled(3.0, t0 + 12 * s);
  REQUIRE(stalled.size() == 3);
  CHECK(stalled[0].actor == "sampler/0");  // in a piece of work: first
  CHECK(stalled[0].working_on == "env_step");
  CHECK(stalled[0].seconds == doctest::Approx(12.0));
  CHECK(stalled[1].actor == "inference/0");  // then the waiting ones, longest first
  CHECK(stalled[1].seconds == doctest::Approx(11.0));
  CHECK(stalled[2].actor == "trainer");
  CHECK(stalled[2].seconds == doctest::Approx(7.0));
  CHECK(tracer.stalled(8.0, t0 + 12 * s).size() == 2);  // the trainer finished work 7 s ago
  CHECK(describe(stalled) ==
        "sampler/0 (sampling lane) in env_step for 12.0 s; no work finished: inference/0 "
        "(inference lane, 11.0 s), trainer (training lane, 7.0 s)");
}

TEST_CASE("the report divides busy time by wall time and the lane's actors") {
  LaneTracer tracer(false);
  tracer.track("sampler/0", Lane::sampling)->work(Lane::sampling, "env_step", 0, 2'000'000'000);
  tracer.track("sampler/1", Lane::sampling)->work(Lane::sampling, "env_step", 0, 1'000'000'000);
  auto trainer = tracer.track("trainer", Lane::training);
  trainer->work(Lane::training, "gradient_step", 0, 3'000'000'000);
  trainer->queue_depth(7);
  const auto r = tracer.report(4.0);
  CHECK(r[Lane::sampling].actors == 2);
  CHECK(r[Lane::sampling].busy_s == doctest::Approx(3.0));
  CHECK(r[Lane::sampling].busy_fraction == doctest::Approx(3.0 / (4.0 * 2)));
  CHECK(r[Lane::training].busy_fraction == doctest::Approx(0.75));
  CHECK(r[Lane::inference].busy_fraction == 0);
  CHECK(r.queue_peaks.at("trainer") == 7);
  CHECK(r.work_s.at("env_step") == doctest::Approx(3.0));
  // The process's CPU time since the tracer started, for what the lanes leave out of it.
  const int64_t burn_until = thread_cpu_ns() + 30'000'000;
  volatile double sink = 0;
  while (thread_cpu_ns() < burn_until) sink = sink + 1;
  CHECK(tracer.report(4.0).process_cpu_s >= 0.03);
}

TEST_CASE("reports of two runs add up: times summed, fractions over the summed wall time") {
  LaneReport total, part;
  total.wall_s = 4.0;
  total.process_cpu_s = 5.0;
  total.lanes[static_cast<size_t>(Lane::sampling)] = {2, 4.0, 3.0, 0.5};
  total.queue_peaks["trainer"] = 3;
  total.work_s["env_step"] = 4.0;
  part.wall_s = 6.0;
  part.process_cpu_s = 7.0;
  part.lanes[static_cast<size_t>(Lane::sampling)] = {2, 8.0, 5.0, 8.0 / 12};
  part.lanes[static_cast<size_t>(Lane::training)] = {1, 3.0, 2.5, 0.5};
  part.queue_peaks["trainer"] = 9;
  part.work_s["env_step"] = 8.0;
  part.work_s["gradient_step"] = 3.0;
  accumulate(total, part);
  CHECK(total.wall_s == 10.0);
  CHECK(total.process_cpu_s == 12.0);
  CHECK(total[Lane::sampling].busy_s == 12.0);
  CHECK(total[Lane::sampling].cpu_s == 8.0);
  CHECK(total[Lane::sampling].busy_fraction == doctest::Approx(12.0 / (10.0 * 2)));
  CHECK(total[Lane::training].actors == 1);
  CHECK(total[Lane::training].busy_fraction == doctest::Approx(0.3));
  CHECK(total.queue_peaks.at("trainer") == 9);
  CHECK(total.work_s.at("env_step") == 12.0);
  CHECK(total.work_s.at("gradient_step") == 3.0);
}

TEST_CASE("ideal speedup: lane times summed over the longest, bounded by the cores") {
  LaneReport r;
  r.lanes[static_cast<size_t>(Lane::sampling)] = {2, 8.0, 0.0, 0};  // 4 s per actor, no CPU
  r.lanes[static_cast<size_t>(Lane::inference)] = {1, 1.0, 1.0, 0};
  r.lanes[static_cast<size_t>(Lane::training)] = {1, 3.0, 3.0, 0};
  // Lane times per step over 1000 steps: 4, 1, 3 ms -> (4 + 1 + 3) / 4 = 2.
  CHECK(ideal_speedup(r, 1000, 2) == doctest::Approx(2.0));
  // On one core the 4 s of CPU bound it as much as sampling does.
  CHECK(ideal_speedup(r, 1000, 1) == doctest::Approx(2.0));
  r.lanes[static_cast<size_t>(Lane::training)] = {1, 6.0, 6.0, 0};
  // 11 s over max(6 s, 7 s of CPU / 1 core) = 11 / 7.
  CHECK(ideal_speedup(r, 1000, 1) == doctest::Approx(11.0 / 7.0));
  // The process spent 16 s of CPU (the lanes 7 s, the runtime the rest): 16 s over 2 cores
  // bound it more than training's 6 s.
  r.process_cpu_s = 16.0;
  CHECK(ideal_speedup(r, 1000, 2) == doctest::Approx(11.0 / 8.0));
  CHECK(ideal_speedup(r, 0, 2) == 0);
}

TEST_CASE("the Chrome trace names a process per lane and a thread per actor") {
  LaneTracer tracer(true);
  const int64_t now = trace_clock_ns();
  auto s = tracer.track("sampler/0", Lane::sampling);
  s->work(Lane::sampling, "env_step", now, now + 1000);
  s->wait("wait_actions", now + 1000, now + 1500);
  auto trainer = tracer.track("trainer", Lane::training);
  trainer->work(Lane::distribution, "publish_weights", now + 1500, now + 1510);
  const auto j = nlohmann::json::parse(tracer.chrome_trace());
  int processes = 0, threads = 0, spans = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
    if (e["ph"] == "X") {
      ++spans;
      CHECK(e["dur"].get<double>() >= 0);
      if (e["name"] == "publish_weights") CHECK(e["pid"] == 4);  // the distribution lane
      if (e["name"] == "wait_actions") CHECK(e["cat"] == "wait");
    }
  }
  CHECK(processes == 4);
  CHECK(threads == 2);
  CHECK(spans == 3);
}

TEST_CASE("policy lag counts give the distribution and its mean") {
  PolicyLagCounts lag;
  CHECK(lag.mean() == 0);
  lag.add(0, 6);
  lag.add(2, 2);
  lag.add(1, 2);
  CHECK(lag.samples == std::vector<uint64_t>{6, 2, 2});
  CHECK(lag.total() == 10);
  CHECK(lag.mean() == doctest::Approx(0.6));
}

TEST_CASE("the watchdog reports a run that stopped moving, and only that") {
  using namespace std::chrono_literals;
  auto now = ProgressWatchdog::Clock::time_point{};
  ProgressWatchdog watchdog(10.0, now);
  RunStatus s;
  // Checks `times` times, one second apart as a polling loop makes them; the first error, if any.
  const auto check_for = [&](int times) {
    for (int i = 0; i < times; ++i)
      if (auto moving = watchdog.check(s, now += 1s); !moving) return moving;
    return Status{};
  };
  CHECK(check_for(9));  // nothing yet, but not for long
  s.env_steps = 100;
  CHECK(check_for(9));  // moved
  s.version = 1;        // training alone counts as progress
  CHECK(check_for(9));
  s.evaluations = 1;  // so does an evaluation
  CHECK(check_for(10));
  const auto stuck = check_for(1);
  REQUIRE_FALSE(stuck);
  CHECK(stuck.error().message().find("no progress for 10 s (env steps 100, version 1)") !=
        std::string::npos);
}

TEST_CASE("time the watching process was paused does not count as a standstill") {
  using namespace std::chrono_literals;
  const auto t0 = ProgressWatchdog::Clock::time_point{};
  ProgressWatchdog watchdog(10.0, t0);
  RunStatus s;
  s.env_steps = 1;
  CHECK(watchdog.check(s, t0 + 1s));    // moved
  CHECK(watchdog.check(s, t0 + 4s));    // still for 3 s
  CHECK(watchdog.check(s, t0 + 304s));  // SIGSTOP for 300 s: the run did not stand, it was held
  CHECK(watchdog.check(s, t0 + 308s));  // still for 7 s
  const auto stuck = watchdog.check(s, t0 + 312s);
  REQUIRE_FALSE(stuck);  // a standstill while the process runs is still found
  CHECK(stuck.error().message().find("no progress for 11 s") != std::string::npos);
}
