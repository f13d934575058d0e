// A frame sent to another OS process over CAF's middleman on 127.0.0.1 decodes intact there; a
// malformed one is refused there and the peer keeps serving.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <cstdio>
#include <random>

#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include "segment_digest.hpp"

using namespace dvla;

namespace {

// The peer process, with a pipe to its stdin (closing it ends the peer) and one from its stdout.
class Peer {
 public:
  Peer() {
    int in[2], out[2];
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl(DVLA_TEST_PEER, DVLA_TEST_PEER, static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    stdout_ = fdopen(out[0], "r");
  }
  ~Peer() {
    close(stdin_);
    fclose(stdout_);
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      usleep(200000);
      if (waitpid(pid_, &status, WNOHANG) == 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
  }
  uint16_t port() {
    unsigned port = 0;
    REQUIRE(fscanf(stdout_, "%u", &port) == 1);
    return static_cast<uint16_t>(port);
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  FILE* stdout_ = nullptr;
};

}  // namespace

TEST_CASE("a segment frame crosses to another process over the middleman and decodes intact") {
  Peer peer;
  const uint16_t port = peer.port();

  caf::actor_system_config config;
  actors::register_types(config);
  config.load<caf::io::middleman>();
  caf::actor_system system{config};
  auto remote = system.middleman().remote_actor("127.0.0.1", port);
  REQUIRE_MESSAGE(remote, system.render(remote.error()));

  // A segment of realistic size (about 600 KB) with random contents.
  const int T = 64, E = 16, O = 128;
  std::mt19937 rng(5);
  std::normal_distribution<float> noise;
  std::vector<float> obs(T * E * O), actions(T * E), rewards(T * E), logp(T * E), values(T * E),
      bootstrap(E);
  std::vector<uint8_t> terminated(T * E), truncated(T * E, 0);
  for (auto* v : {&obs, &actions, &rewards, &logp, &values, &bootstrap})
    for (auto& x : *v) x = noise(rng);
  for (auto& t : terminated) t = rng() % 50 == 0;
  msg::TrajectorySegment s;
  s.sampler_id = 4;
  s.sequence = 1234;
  std::vector<uint8_t> images(T * E * 16 * 16 * 3), success(T * E, 0);
  for (auto& px : images) px = static_cast<uint8_t>(rng());
  std::vector<int32_t> tokens(T * E * 12, 7);
  s.observations = {
      {obs.data(), {T, E, O}}, {images.data(), {T, E, 1, 16, 16, 3}}, {tokens.data(), {T, E, 12}}};
  s.success = {success.data(), {T, E}};
  s.actions = {actions.data(), {T, E, 1}};
  s.rewards = {rewards.data(), {T, E}};
  s.terminated = {terminated.data(), {T, E}};
  s.truncated = {truncated.data(), {T, E}};
  s.log_probs = {logp.data(), {T, E}};
  s.values = {values.data(), {T, E}};
  s.bootstrap_values = {bootstrap.data(), {E}};
  s.policy_versions.assign(T, 17);
  const auto frame = msg::build(s);
  const auto local = msg::read(frame);
  REQUIRE(local);

  caf::scoped_actor self{system};
  auto ask = [&](const msg::SegmentFrame& f) {
    std::string answer;
    self->request(*remote, std::chrono::seconds(30), f)
        .receive([&](const std::string& a) { answer = a; },
                 [&](const caf::error& e) { answer = "request failed: " + actors::describe(e); });
    return answer;
  };
  CHECK(ask(frame) == test::digest(*local));

  // Damaged bytes are refused over there, with the reason, and the peer keeps serving.
  auto damaged =
      ask(msg::SegmentFrame(msg::Bytes::copy_of(frame.data(), frame.size() / 3 / 8 * 8)));
  CHECK(damaged.find("error: trajectory segment:") == 0);
  CHECK(ask(frame) == test::digest(*local));
}
