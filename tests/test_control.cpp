// The control plane: every lane actor has a control endpoint of its own, which answers while its
// data actor is busy; the supervisor's control rounds reach every actor (pause stops the
// samplers, resume restarts them) and are timed into the run's status; an evaluate command has
// the latest weights evaluated. A blocking ask leaves no stale timeout behind. The planes'
// scheduler workers wait for work instead of polling for it.
#include "doctest_with_torch.hpp"

#include <sys/resource.h>

#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include <dvla/actors/atoms.hpp>
#include <dvla/actors/control/accepted_tls_connections.hpp>
#include <dvla/actors/control/control_endpoint.hpp>
#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/control/supervisor.hpp>
#include <dvla/actors/graph/graph.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/blocking_ask.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/messages/control_command.hpp>

using namespace dvla;
using namespace dvla::actors;

namespace {

const auto wait = std::chrono::seconds(30);

struct System {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  System() {
    register_types(config);
    system = std::make_unique<caf::actor_system>(config);
  }
};

msg::ControlFrame command(msg::Command kind, uint64_t id) {
  return msg::build(msg::ControlCommand{kind, id, {}});
}

using Answer = std::pair<std::optional<uint64_t>, std::string>;  // request id, or the error

// Sends a command to an endpoint (answers: request id, idle ns).
Answer order(caf::scoped_actor& self, const control_endpoint_actor& to,
             const msg::ControlFrame& frame) {
  Answer out;
  self->request(to, wait, frame)
      .receive([&](uint64_t id, int64_t) { out.first = id; },
               [&](const caf::error& e) { out.second = describe(e); });
  return out;
}

// Sends a command to the supervisor (answers: request id).
Answer order(caf::scoped_actor& self, const supervisor_actor& to, const msg::ControlFrame& frame) {
  Answer out;
  self->request(to, wait, frame)
      .receive([&](uint64_t id) { out.first = id; },
               [&](const caf::error& e) { out.second = describe(e); });
  return out;
}

RunStatus status(caf::scoped_actor& self, const supervisor_actor& supervisor) {
  RunStatus out;
  self->request(supervisor, wait, status_atom::value)
      .receive([&](const RunStatus& s) { out = s; },
               [&](const caf::error& e) { FAIL("no status: ", describe(e)); });
  return out;
}

}  // namespace

TEST_CASE(
    "an endpoint answers a ping while its data actor computes, and refuses what it cannot do") {
  System s;
  std::atomic<bool> computed{false};
  // A data actor busy for a while with the first message it gets.
  auto busy = s.system->spawn<caf::detached>([&computed]() -> caf::behavior {
    return {[&computed](int) {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      computed = true;
    }};
  });
  ControlEndpointSetup setup;
  setup.name = "busy";
  setup.data_actor = busy;
  auto endpoint = spawn_control_endpoint(*s.system, setup);
  caf::scoped_actor self{*s.system};
  self->send(busy, 1);

  auto [ping, e1] = order(self, endpoint, command(msg::Command::ping, 41));
  REQUIRE_MESSAGE(ping, e1);
  CHECK(*ping == 41);
  CHECK_FALSE(computed);  // answered while the data actor was still busy

  auto [pause, e2] = order(self, endpoint, command(msg::Command::pause, 42));
  CHECK_FALSE(pause);
  CHECK(e2.find("busy does not take 'pause' orders") != std::string::npos);
  auto [garbage, e3] =
      order(self, endpoint, msg::ControlFrame(msg::Bytes::copy_of("\x01\x02\x03", 3)));
  CHECK_FALSE(garbage);
  CHECK(e3.find("malformed_message") == 0);
  auto [again, e4] = order(self, endpoint, command(msg::Command::ping, 43));
  CHECK(again == std::optional<uint64_t>(43));  // it keeps serving

  auto [down, e5] = order(self, endpoint, command(msg::Command::shutdown, 44));
  CHECK(down == std::optional<uint64_t>(44));
  self->wait_for(busy);  // shutdown ended the data actor too
}

TEST_CASE("control rounds reach every actor: pause stops the samplers, resume restarts them") {
  System s;
  Config c;
  c.run.max_env_steps = 1'000'000'000;  // runs until shut down
  c.run.control_ping_interval_s = 0.05;
  auto supervisor = spawn_supervisor(*s.system, c, default_graph(c));
  caf::scoped_actor self{*s.system};
  auto steps_after = [&](std::chrono::milliseconds ms) {
    std::this_thread::sleep_for(ms);
    return status(self, supervisor).env_steps;
  };
  while (status(self, supervisor).env_steps == 0) std::this_thread::sleep_for(wait / 3000);

  auto [paused, e1] = order(self, supervisor, command(msg::Command::pause, 7));
  REQUIRE_MESSAGE(paused, e1);
  CHECK(*paused == 7);
  // Steps already under way when the order arrived are reported; then nothing moves.
  const auto settled = steps_after(std::chrono::milliseconds(1000));
  CHECK(steps_after(std::chrono::milliseconds(500)) == settled);

  auto [resumed, e2] = order(self, supervisor, command(msg::Command::resume, 8));
  REQUIRE_MESSAGE(resumed, e2);
  CHECK(*resumed == 8);
  uint64_t later = settled;
  for (int i = 0; i < 100 && later == settled; ++i)
    later = steps_after(std::chrono::milliseconds(100));
  CHECK(later > settled);

  // The supervisor's own pings: every endpoint answered, and the round trips were timed.
  const auto control = status(self, supervisor).control;
  CHECK(control.rounds >= 2);
  CHECK(control.mean_us > 0);
  CHECK(control.max_us >= control.mean_us);

  auto [stopped, e3] = order(self, supervisor, command(msg::Command::shutdown, 9));
  CHECK(stopped == std::optional<uint64_t>(9));
  self->wait_for(supervisor);
}

TEST_CASE("an evaluate command evaluates the latest weights; without episodes it is refused") {
  System s;
  Config c;
  c.run.max_env_steps = 1'000'000'000;  // runs until shut down
  c.run.eval_every = 0;                 // no periodic evaluations: only those commanded
  c.run.eval_episodes = 3;
  auto supervisor = spawn_supervisor(*s.system, c, default_graph(c));
  caf::scoped_actor self{*s.system};
  while (status(self, supervisor).version < 2) std::this_thread::sleep_for(wait / 3000);
  const auto before = status(self, supervisor);
  CHECK(before.evaluations == 0);

  auto [evaluated, e1] = order(self, supervisor, command(msg::Command::evaluate, 21));
  REQUIRE_MESSAGE(evaluated, e1);
  CHECK(*evaluated == 21);
  const auto after = status(self, supervisor);
  CHECK(after.evaluations == 1);  // answered once the result is in the status
  CHECK(after.last_evaluation.episodes == 3);
  CHECK(after.last_evaluation.version >= before.version);  // the latest weights, not the first

  // Two at once: the second waits for the first to end, then gets an evaluation of its own.
  auto first = self->request(supervisor, wait, command(msg::Command::evaluate, 22));
  auto second = self->request(supervisor, wait, command(msg::Command::evaluate, 23));
  std::vector<uint64_t> ids;
  for (auto* handle : {&first, &second})
    handle->receive([&](uint64_t answered) { ids.push_back(answered); },
                    [&](const caf::error& e) { FAIL("evaluate failed: ", describe(e)); });
  CHECK(ids == std::vector<uint64_t>{22, 23});
  CHECK(status(self, supervisor).evaluations == 3);
  order(self, supervisor, command(msg::Command::shutdown, 24));
  self->wait_for(supervisor);

  c.run.eval_episodes = 0;
  auto without = spawn_supervisor(*s.system, c, default_graph(c));
  auto [refused, e2] = order(self, without, command(msg::Command::evaluate, 25));
  CHECK_FALSE(refused);
  CHECK(e2.find("eval.episodes is 0") != std::string::npos);
  CHECK(status(self, without).evaluations == 0);
  order(self, without, command(msg::Command::shutdown, 26));
  self->wait_for(without);
}

TEST_CASE("a blocking ask leaves nothing behind in the asking actor's mailbox") {
  System s;
  auto echo = s.system->spawn([]() -> caf::behavior { return {[](int x) { return x; }}; });
  caf::scoped_actor self{*s.system};
  const double timeout_s = 0.2;
  for (int i = 0; i < 100; ++i) {
    auto answer = ask<int>(self, echo, timeout_s, "echo", i);
    REQUIRE_MESSAGE(answer, answer.error().message());
    CHECK(std::get<0>(*answer) == i);
  }
  // Well after every request's timeout: a timeout left armed would have landed in the mailbox by
  // now (CAF 0.17 keeps it after the answer), one message per request, for good.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  CHECK(self->mailbox().size() == 0);
  // A request that is not answered in time is an error naming what was asked.
  auto silent = s.system->spawn([]() -> caf::behavior { return {[](int) {}}; });
  auto unanswered = ask<int>(self, silent, 0.05, "the silent actor", 1);
  REQUIRE_FALSE(unanswered);
  CHECK(unanswered.error().message().rfind("the silent actor: ", 0) == 0);
  self->send_exit(echo, caf::exit_reason::user_shutdown);
  self->send_exit(silent, caf::exit_reason::user_shutdown);
}

namespace {

long voluntary_context_switches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw;
}

}  // namespace

TEST_CASE("the planes' scheduler workers wait for work: a trickle of messages costs few wake-ups") {
  // CAF's default work stealing has an idle worker poll 500 times, 50 us apart, before it blocks:
  // with a message every 2 ms the workers never got that far, about 33 wake-ups per message in
  // these three systems (a throwaway program measured 3,049-3,633 for 100 messages, against
  // 300-349 with the shared queue the planes use).
  PlaneSystems planes(/*split=*/true, /*scheduler_threads=*/2);
  auto echo = planes.data().spawn([]() -> caf::behavior { return {[](int x) { return x; }}; });
  caf::scoped_actor self{planes.data()};
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the systems' start settles
  const int messages = 100;
  const long before = voluntary_context_switches();
  for (int i = 0; i < messages; ++i) {
    self->request(echo, wait, i)
        .receive([&](int x) { CHECK(x == i); }, [&](const caf::error& e) { FAIL(describe(e)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const long switches = voluntary_context_switches() - before;
  MESSAGE(switches, " voluntary context switches for ", messages, " messages");
  CHECK(switches < 10 * messages);
  self->send_exit(echo, caf::exit_reason::user_shutdown);
}

TEST_CASE(
    "accepted TLS connections: one over its address's bound is refused (told once while the "
    "address holds any), a closed one frees its slot, other addresses are not affected, a "
    "handshake past its timeout is ended") {
  using dvla::actors::AcceptedTlsConnections;
  using Admission = AcceptedTlsConnections::Admission;
  using std::chrono::seconds;
  AcceptedTlsConnections connections(2, seconds(10));
  const auto t0 = AcceptedTlsConnections::Clock::now();
  int a = 0, b = 0, c = 0, d = 0, e = 0;
  CHECK(connections.open(&a, "10.0.0.1", t0) == Admission::admitted);
  CHECK(connections.open(&a, "10.0.0.1", t0) == Admission::admitted);  // counted once
  CHECK(connections.open(&b, "10.0.0.1", t0) == Admission::admitted);
  CHECK(connections.open_from("10.0.0.1") == 2);
  CHECK(connections.open(&c, "10.0.0.1", t0) == Admission::refused_told);
  CHECK(connections.open(&d, "10.0.0.1", t0) == Admission::refused);
  CHECK_FALSE(connections.counted(&c));
  CHECK(connections.open(&c, "10.0.0.2", t0) == Admission::admitted);
  CHECK(connections.refused() == 2);
  connections.close(&d);  // never admitted: nothing to give back
  CHECK(connections.open_from("10.0.0.1") == 2);
  connections.close(&a);
  CHECK(connections.open(&e, "10.0.0.1", t0) == Admission::admitted);
  CHECK(connections.open(&a, "10.0.0.1", t0) == Admission::refused);  // told already
  connections.close(&b);
  connections.close(&e);
  CHECK(connections.open_from("10.0.0.1") == 0);
  // All of its connections gone, the address is told again the next time it is over the bound.
  CHECK(connections.open(&a, "10.0.0.1", t0) == Admission::admitted);
  CHECK(connections.open(&b, "10.0.0.1", t0 + seconds(5)) == Admission::admitted);
  CHECK(connections.open(&d, "10.0.0.1", t0) == Admission::refused_told);
  CHECK(connections.open_from("10.0.0.2") == 1);
  CHECK(connections.refused() == 4);
  // Handshakes: on time, then overdue (told once per address), a session not counted is no
  // business of this.
  CHECK(connections.handshake(&a, t0 + seconds(10)) == Admission::admitted);
  CHECK(connections.handshake(&a, t0 + seconds(11)) == Admission::refused_told);
  CHECK(connections.handshake(&b, t0 + seconds(11)) == Admission::admitted);
  CHECK(connections.handshake(&b, t0 + seconds(16)) == Admission::refused);
  CHECK(connections.handshake(&d, t0 + seconds(100)) == Admission::admitted);
  CHECK(connections.address_of(&a) == "10.0.0.1");
  CHECK(connections.address_of(&d).empty());
  CHECK(connections.refused() == 6);
}
