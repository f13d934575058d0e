// A frame sent to another OS process over CAF's middleman on 127.0.0.1 decodes intact there; a
// malformed one is refused there and the peer keeps serving. Over mutual TLS a 1 MiB segment
// crosses intact, and peers without a certificate of the right CA are refused.
#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include "cluster_certs.hpp"
#include "segment_digest.hpp"

using namespace dvla;

namespace {

// The peer process, with a pipe to its stdin (closing it ends the peer) and one from its stdout.
class Peer {
 public:
  explicit Peer(std::vector<std::string> args = {}) {
    int in[2], out[2];
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // ends with the test binary (ctest's TIMEOUT)
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      std::vector<char*> argv{const_cast<char*>(DVLA_TEST_PEER)};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(DVLA_TEST_PEER, argv.data());
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
  // The port it listens on, which it says first; a peer silent for a minute is killed and the
  // test fails. (Its other waits are the test's requests, each with its own timeout.)
  uint16_t port() {
    pollfd p{fileno(stdout_), POLLIN, 0};
    if (poll(&p, 1, 60'000) != 1) {
      kill(pid_, SIGKILL);
      throw std::runtime_error(std::string(DVLA_TEST_PEER) +
                               " said no port within its deadline of 60 s: killed (its stderr "
                               "is above)");
    }
    unsigned port = 0;
    REQUIRE(fscanf(stdout_, "%u", &port) == 1);
    return static_cast<uint16_t>(port);
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  FILE* stdout_ = nullptr;
};

// A segment of `observation_floats` per step (64 steps x 16 envs) with random contents.
msg::SegmentFrame random_segment(int observation_floats) {
  const int T = 64, E = 16, O = observation_floats;
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
  return msg::build(s);
}

// The peer's answer to `frame`: the digest of what it decoded, or why the request failed.
std::string ask(caf::scoped_actor& self, const caf::actor& peer, const msg::SegmentFrame& f) {
  std::string answer;
  self->request(peer, std::chrono::seconds(30), f)
      .receive([&](const std::string& a) { answer = a; },
               [&](const caf::error& e) { answer = "request failed: " + actors::describe(e); });
  return answer;
}

// Certificates of two CAs under `dir` (scripts/cluster-certs.sh): ca/{ca,peer,client} and
// rogue/{ca,client}.
bool make_certificates(const std::string& dir) {
  dvla::test::make_cluster_certs(dir + "/ca", "peer client");
  dvla::test::make_cluster_certs(dir + "/rogue", "client");
  return true;
}

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

  // A segment of realistic size (about 600 KB).
  const auto frame = random_segment(128);
  const auto local = msg::read(frame);
  REQUIRE(local);

  caf::scoped_actor self{system};
  CHECK(ask(self, *remote, frame) == test::digest(*local));

  // Damaged bytes are refused over there, with the reason, and the peer keeps serving.
  auto damaged =
      ask(self, *remote,
          msg::SegmentFrame(msg::Bytes::copy_of(frame.data(), frame.size() / 3 / 8 * 8)));
  CHECK(damaged.find("error: trajectory segment:") == 0);
  CHECK(ask(self, *remote, frame) == test::digest(*local));
}

TEST_CASE(
    "over mutual TLS a 1 MiB segment crosses intact; another CA's peer and a plain one are "
    "refused") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("dvla-test-tls-" + std::to_string(getpid()));
  REQUIRE(make_certificates(dir.string()));
  const auto ca = (dir / "ca").string(), rogue = (dir / "rogue").string();
  Peer peer({ca + "/peer.pem", ca + "/peer.key", ca + "/ca.pem"});
  const uint16_t port = peer.port();
  const auto frame = random_segment(256);  // 64 x 16 steps of 256 floats: 1 MiB of observations
  REQUIRE(frame.size() > (size_t{1} << 20));
  const auto local = msg::read(frame);
  REQUIRE(local);
  // A client with a certificate from the peer's CA.
  {
    actors::PlaneSystems planes(false, 2,
                                {0, 0, ca + "/client.pem", ca + "/client.key", ca + "/ca.pem"});
    auto remote = planes.connect<caf::actor>(planes.data(), "127.0.0.1", port);
    REQUIRE_MESSAGE(remote, remote.error().message());
    caf::scoped_actor self{planes.data()};
    CHECK(ask(self, *remote, frame) == test::digest(*local));
  }
  // One whose certificate another CA signed (trusting that CA too), and one without TLS.
  {
    actors::PlaneSystems planes(
        false, 2, {0, 0, rogue + "/client.pem", rogue + "/client.key", rogue + "/ca.pem"});
    auto remote = planes.connect<caf::actor>(planes.data(), "127.0.0.1", port);
    REQUIRE_FALSE(remote);
    MESSAGE("another CA's client: ", remote.error().message());
  }
  {
    actors::PlaneSystems planes(false, 2);
    auto remote = planes.connect<caf::actor>(planes.data(), "127.0.0.1", port);
    REQUIRE_FALSE(remote);
    MESSAGE("a plain client: ", remote.error().message());
  }
  std::filesystem::remove_all(dir);
}
