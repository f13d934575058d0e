// A multi-node run on 127.0.0.1: a coordinator (dvla-ppo --listen) and node processes
// (dvla-node). It learns as one process does; a node killed or hung mid-run is declared lost,
// named, and the run goes on and completes with every node's acknowledged env steps adding up to
// its total; a restarted node rejoins with the current weights; a relay node's loss reroutes its
// child's weights; a node caps BLAS's threads as one process does.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "child_process.hpp"
#include "cluster_certs.hpp"
#include "network_noise.hpp"

using dvla::test::ChildProcess;
using dvla::test::Connection;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Heartbeats fast enough that a lost node is noticed within two seconds.
const std::vector<std::string> heartbeats = {"--set", "cluster.heartbeat_interval_s=0.2", "--set",
                                             "cluster.connection_timeout_s=2"};

const std::vector<std::string> one_sampler = {"--samplers", "1"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class Cluster {
 public:
  explicit Cluster(const std::string& name)
      : dir_(fs::temp_directory_path() /
             ("dvla-test-cluster-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Cluster() {
    nodes_.clear();
    coordinator_.reset();
    fs::remove_all(dir_);
  }

  std::string dir() const { return dir_.string(); }

  // Starts the coordinator on a free port and returns it (0 when it did not say).
  uint16_t start_coordinator(const std::vector<std::string>& args) {
    return start_coordinator_program(
        DVLA_PPO, std::vector<std::string>{"--listen", "127.0.0.1:0", "--json"} + args);
  }

  // The same with a user's program that listens on a free port of 127.0.0.1.
  uint16_t start_coordinator_program(const std::string& program,
                                     const std::vector<std::string>& args) {
    coordinator_ = std::make_unique<ChildProcess>(program, args, (dir_ / "coordinator").string());
    std::smatch m;
    const std::regex port("coordinator port ([0-9]+)");
    coordinator_->wait_for_err([&](const std::string& e) { return std::regex_search(e, m, port); });
    const auto err = coordinator_->err();
    if (!std::regex_search(err, m, port)) return 0;
    port_ = static_cast<uint16_t>(std::stoi(m[1]));
    return port_;
  }

  ChildProcess& start_node(const std::string& name, const std::vector<std::string>& args = {}) {
    return start_node_program(
        name, DVLA_NODE,
        std::vector<std::string>{"--coordinator", "127.0.0.1:" + std::to_string(port_), "--name",
                                 name} +
            args);
  }

  ChildProcess& start_node_program(const std::string& name, const std::string& program,
                                   const std::vector<std::string>& args) {
    nodes_.push_back(std::make_unique<ChildProcess>(
        program, args, (dir_ / (name + "-" + std::to_string(nodes_.size()))).string()));
    return *nodes_.back();
  }

  uint16_t port() const { return port_; }

  ChildProcess& coordinator() { return *coordinator_; }

  // Waits until the coordinator's progress lines show acknowledged env steps of node `name`:
  // the run is under way there, whatever the machine's load.
  bool wait_until_counted(const std::string& name) {
    const std::regex counted("node " + name + " +running env steps +[1-9]");
    return coordinator_->wait_for_out(
        [&](const std::string& out) { return std::regex_search(out, counted); });
  }

  // A coordinator with `env_steps` to collect and fast heartbeats, and nodes a and b of one
  // sampler each; returned once their samplers started.
  std::pair<ChildProcess&, ChildProcess&> start_two_nodes(uint64_t env_steps) {
    REQUIRE(start_coordinator(std::vector<std::string>{"--nodes", "2", "--max-env-steps",
                                                       std::to_string(env_steps), "--set",
                                                       "eval.episodes=2"} +
                              heartbeats) != 0);
    // A node that outlives its coordinator gives up dialling it again soon.
    const std::vector<std::string> brief_rejoin = {"--set", "cluster.rejoin_timeout_s=1"};
    auto& a = start_node("a", one_sampler + heartbeats + brief_rejoin);
    auto& b = start_node("b", one_sampler + heartbeats + brief_rejoin);
    REQUIRE(coordinator_->wait_for_err([](const std::string& e) {
      return e.find("starting with 2 node(s)") != std::string::npos;
    }));
    return {a, b};
  }

  // The coordinator's summary: the last line of its stdout (--json).
  json summary() const {
    const auto out = coordinator_->out();
    const auto line = out.rfind("\n{");
    if (line == std::string::npos) return json();
    return json::parse(out.substr(line + 1), nullptr, /*allow_exceptions=*/false);
  }

 private:
  fs::path dir_;
  std::unique_ptr<ChildProcess> coordinator_;
  std::vector<std::unique_ptr<ChildProcess>> nodes_;
  uint16_t port_ = 0;
};

// This process's TLS flags: its certificate and key NAME under `dir`, and `dir`'s CA.
std::vector<std::string> tls(const std::string& dir, const std::string& name) {
  return {"--set", "cluster.tls.certificate=" + dir + "/" + name + ".pem",
          "--set", "cluster.tls.key=" + dir + "/" + name + ".key",
          "--set", "cluster.tls.cafile=" + dir + "/ca.pem"};
}

// The coordinator's log line that names a lost node.
bool lost_line(const std::string& log, const std::string& node) {
  return std::regex_search(log, std::regex("node '" + node + "' \\(host [^)]*\\) lost: "));
}

uint64_t node_steps(const json& summary) {
  uint64_t sum = 0;
  for (const auto& n : summary["nodes"]) sum += n["env_steps"].get<uint64_t>();
  return sum;
}

// What a node itself counted at its release: the env steps of its segments the learner
// acknowledged (its uplinks' count of each acknowledged segment's valid steps); nullopt when it
// did not say.
std::optional<uint64_t> own_count(const ChildProcess& node) {
  std::smatch m;
  const auto err = node.err();
  static const std::regex said("the learner acknowledged ([0-9]+) env steps of this node");
  if (!std::regex_search(err, m, said)) return std::nullopt;
  return std::stoull(m[1]);
}

// The coordinator's tally of node `name` against the node's own count. They differ by at most the
// segments in flight when the run ended (acknowledged on one side, the answer not yet at the
// other): a few segments of 8 envs x 32 steps per sampler. A node whose env steps were counted
// from what it reports, or twice, is far outside.
void check_own_count(const json& summary, const std::string& name, const ChildProcess& node) {
  const auto own = own_count(node);
  REQUIRE_MESSAGE(own, node.err());
  uint64_t tallied = 0;
  for (const auto& n : summary["nodes"])
    if (n["name"] == name && n["state"] == "running") tallied = n["env_steps"].get<uint64_t>();
  MESSAGE("node ", name, ": coordinator ", tallied, ", its own count ", *own);
  CHECK(*own > 0);
  const uint64_t apart = tallied > *own ? tallied - *own : *own - tallied;
  CHECK(apart <= 4 * 8 * 32);
}

// The best evaluation of a run: the periodic ones in its progress log and the final one.
double best_evaluation(const std::string& logdir, const json& summary) {
  double best = summary.value("eval_mean_return", 0.0);
  std::ifstream in(fs::path(logdir) / "progress.jsonl");
  for (std::string line; std::getline(in, line);) {
    const auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("last_eval"))
      best = std::max(best, j["last_eval"]["mean_return"].get<double>());
  }
  return best;
}

// A port P of 127.0.0.1 with P, P+1 and P+2 free, below the ephemeral range (32768 and up on
// Linux), or 0.
uint16_t free_port_triple() {
  auto free = [](uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    return ok;
  };
  for (auto p = static_cast<uint16_t>(20000 + 3 * (getpid() % 3000)); p < 32000; p += 3)
    if (free(p) && free(p + 1) && free(p + 2)) return p;
  return 0;
}

// How often `pattern` occurs in `text`.
size_t count_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// A run whose nodes a and b were honest: the run's env steps are theirs, each as it counted
// them itself, and the run learned CartPole.
void check_honest_nodes_learned(const json& summary, const std::string& logdir,
                                const ChildProcess& a, const ChildProcess& b) {
  CHECK(node_steps(summary) == summary["env_steps"].get<uint64_t>());
  check_own_count(summary, "a", a);
  check_own_count(summary, "b", b);
  const double best = best_evaluation(logdir, summary);
  MESSAGE("best evaluation ", best);
  CHECK(best >= 195.0);
}

}  // namespace

TEST_CASE("a coordinator and two node processes learn CartPole as one process does") {
  Cluster cluster("learn");
  const auto logdir = cluster.dir() + "/run";
  // The one-process test's budget, samplers (2 x 8 envs: one per node) and threshold; every
  // version crosses to the nodes in 4 KiB chunks (about 5 per version), two in flight.
  REQUIRE(cluster.start_coordinator({"--nodes", "2", "--max-env-steps", "500000", "--set",
                                     "eval.every=25", "--set", "distribution.chunk_mib=0.004",
                                     "--logdir", logdir}) != 0);
  auto& a = cluster.start_node("a", one_sampler);
  auto& b = cluster.start_node("b", one_sampler);
  REQUIRE_MESSAGE(cluster.coordinator().wait() == 0, cluster.coordinator().err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  CHECK_MESSAGE(b.wait() == 0, b.err());
  // Each node caps BLAS's own pool as a one-process run does (1 thread at the defaults): left at
  // OpenBLAS's thread per core, its worker spun beside the node's samplers.
  const std::regex capped(
      "joined the coordinator at .* as node [12]; BLAS: .* \\((1 thread|threads "
      "not known)\\)");
  CHECK_MESSAGE(std::regex_search(a.err(), capped), a.err());
  CHECK_MESSAGE(std::regex_search(b.err(), capped), b.err());
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  REQUIRE(summary["nodes"].size() == 2);
  CHECK(node_steps(summary) == summary["env_steps"].get<uint64_t>());
  check_own_count(summary, "a", a);
  check_own_count(summary, "b", b);
  CHECK(summary["env_steps"].get<uint64_t>() >= 500000);
  for (const auto& n : summary["nodes"]) {
    CHECK(n["state"] == "running");
    CHECK(n["env_steps"].get<uint64_t>() > 0);
    CHECK(n["weight_updates"].get<uint64_t>() > 0);
  }
  const double best = best_evaluation(logdir, summary);
  MESSAGE("best evaluation ", best, ", final ", summary["eval_mean_return"].get<double>());
  CHECK(best >= 450.0);
}

TEST_CASE("a node killed mid-run is lost and named; the run completes; its restart rejoins") {
  Cluster cluster("kill");
  auto [a, b] = cluster.start_two_nodes(600000);
  auto& coordinator = cluster.coordinator();
  REQUIRE_MESSAGE(cluster.wait_until_counted("a"), coordinator.out());  // mid-run
  a.signal(SIGKILL);
  CHECK(a.wait() == 128 + SIGKILL);
  const bool lost =
      coordinator.wait_for_err([](const std::string& e) { return lost_line(e, "a"); });
  REQUIRE_MESSAGE(lost, coordinator.err());
  auto& restarted = cluster.start_node("a", one_sampler + heartbeats);
  REQUIRE_MESSAGE(coordinator.wait() == 0, coordinator.err());
  CHECK_MESSAGE(b.wait() == 0, b.err());
  CHECK_MESSAGE(restarted.wait() == 0, restarted.err());
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  // b, the lost a, the restarted a: nothing counted twice, nothing acknowledged lost.
  REQUIRE(summary["nodes"].size() == 3);
  CHECK(node_steps(summary) == summary["env_steps"].get<uint64_t>());
  int lost_nodes = 0;
  for (const auto& n : summary["nodes"]) {
    MESSAGE(n.dump());
    CHECK(n["env_steps"].get<uint64_t>() > 0);
    if (n["state"] == "lost") {
      ++lost_nodes;
      CHECK(n["name"] == "a");
      continue;
    }
    CHECK(n["state"] == "running");
  }
  CHECK(lost_nodes == 1);
  check_own_count(summary, "b", b);
  const auto& rejoined = summary["nodes"].back();
  CHECK(rejoined["name"] == "a");
  CHECK(rejoined["state"] == "running");
  // It started with the learner's weights of the time, and acted with them from its first step.
  CHECK(rejoined["start_version"].get<uint64_t>() > 0);
  CHECK(rejoined["first_segment_version"].get<uint64_t>() >=
        rejoined["start_version"].get<uint64_t>());
  CHECK(coordinator.err().find("remote_link_unreachable") != std::string::npos);
}

TEST_CASE("a hung node (SIGSTOP) is declared lost by the heartbeats, and the run goes on") {
  Cluster cluster("hang");
  auto [a, b] = cluster.start_two_nodes(300000);
  auto& coordinator = cluster.coordinator();
  REQUIRE_MESSAGE(cluster.wait_until_counted("b"), coordinator.out());  // mid-run
  b.signal(SIGSTOP);  // its TCP connection stays open: only the heartbeats can tell
  const auto stopped = std::chrono::steady_clock::now();
  const bool lost =
      coordinator.wait_for_err([](const std::string& e) { return lost_line(e, "b"); });
  const double after_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
  REQUIRE_MESSAGE(lost, coordinator.err());
  MESSAGE("declared lost ", after_s, " s after SIGSTOP (cluster.connection_timeout_s = 2)");
  REQUIRE_MESSAGE(coordinator.wait() == 0, coordinator.err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  b.signal(SIGCONT);  // it finds its coordinator gone, dials it again for a second, and stops
  CHECK(b.wait() == 1);
  CHECK_MESSAGE(
      b.err().find("no coordinator within cluster.rejoin_timeout_s = 1 s") != std::string::npos,
      b.err());
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  CHECK(node_steps(summary) == summary["env_steps"].get<uint64_t>());
  check_own_count(summary, "a", a);
}

TEST_CASE("a relay node killed mid-transfer: its child takes the next versions from the learner") {
  Cluster cluster("relay");
  // A chain: learner -> a -> b (fanout 1); small chunks, one in flight: a version takes many
  // round trips per hop, so the kill lands while one is on its way.
  REQUIRE(cluster.start_coordinator(
              std::vector<std::string>{"--nodes", "2", "--max-env-steps", "300000", "--set",
                                       "eval.episodes=2", "--set", "distribution.fanout=1", "--set",
                                       "distribution.chunk_mib=0.004", "--set",
                                       "distribution.chunks_in_flight=1"} +
              heartbeats) != 0);
  auto& coordinator = cluster.coordinator();
  auto placed = [&](const std::string& node, const std::string& from) {
    return coordinator.wait_for_err([&](const std::string& e) {
      return e.find("node '" + node + "' takes its weights from " + from) != std::string::npos;
    });
  };
  auto& a = cluster.start_node("a", one_sampler + heartbeats);
  REQUIRE_MESSAGE(placed("a", "learner"), coordinator.err());
  auto& b = cluster.start_node("b", one_sampler + heartbeats);
  REQUIRE_MESSAGE(placed("b", "a"), coordinator.err());
  REQUIRE_MESSAGE(cluster.wait_until_counted("b"), coordinator.out());  // b acts with a's relay
  a.signal(SIGKILL);
  CHECK(a.wait() == 128 + SIGKILL);
  const bool rerouted = coordinator.wait_for_err([](const std::string& e) {
    return e.find("node 'b' now takes its weights from learner") != std::string::npos &&
           e.find("(its relay 'a' was lost)") != std::string::npos;
  });
  REQUIRE_MESSAGE(rerouted, coordinator.err());
  REQUIRE_MESSAGE(coordinator.wait() == 0, coordinator.err());
  CHECK_MESSAGE(b.wait() == 0, b.err());
  CHECK(b.err().find("takes its weights from learner") != std::string::npos);
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  REQUIRE(summary["nodes"].size() == 2);
  const auto& lost = summary["nodes"][0];
  const auto& child = summary["nodes"][1];
  MESSAGE(lost.dump());
  MESSAGE(child.dump());
  CHECK(lost["state"] == "lost");
  CHECK(child["state"] == "running");
  CHECK(child["weights_from"] == "learner");
  // It went on getting versions after its relay was gone.
  CHECK(child["weights_version"].get<uint64_t>() > lost["weights_version"].get<uint64_t>());
  CHECK(node_steps(summary) == summary["env_steps"].get<uint64_t>());
  check_own_count(summary, "b", b);
}

TEST_CASE(
    "with mutual TLS a node of the cluster's CA joins; another CA's node, a node that trusts the "
    "cluster's CA with a certificate of another, and a plain one are refused, each named with its "
    "address by the coordinator") {
  Cluster cluster("tls");
  const auto ca = cluster.dir() + "/ca", rogue = cluster.dir() + "/rogue";
  dvla::test::make_cluster_certs(ca, "coordinator good");
  dvla::test::make_cluster_certs(rogue, "rogue");
  REQUIRE(cluster.start_coordinator(std::vector<std::string>{"--nodes", "1", "--max-env-steps",
                                                             "100000", "--set", "eval.episodes=2"} +
                                    tls(ca, "coordinator")) != 0);
  // The refused ones stop dialling after their join timeout, with the reason.
  const std::vector<std::string> brief = {"--set", "cluster.join_timeout_s=2"};
  auto& other_ca = cluster.start_node("rogue", tls(rogue, "rogue") + brief);
  auto& plain = cluster.start_node("plain", brief);
  const std::vector<std::string> forged_tls = {
      "--set", "cluster.tls.certificate=" + rogue + "/rogue.pem",
      "--set", "cluster.tls.key=" + rogue + "/rogue.key",
      "--set", "cluster.tls.cafile=" + ca + "/ca.pem"};
  auto& forged = cluster.start_node("rogue", forged_tls + brief);  // its certificate's name
  // A node is its certificate's name, and a node's certificate is no coordinator's.
  auto& misnamed = cluster.start_node("misnamed", tls(ca, "good") + brief);
  auto& as_coordinator = cluster.start_node("coordinator", tls(ca, "coordinator") + brief);
  CHECK(other_ca.wait() == 1);
  CHECK(plain.wait() == 1);
  CHECK(forged.wait() == 1);
  CHECK(misnamed.wait() == 1);
  CHECK_MESSAGE(misnamed.err().find("--name 'misnamed' is not the name of this node's "
                                    "certificate ('good'") != std::string::npos,
                misnamed.err());
  CHECK(as_coordinator.wait() == 1);
  CHECK_MESSAGE(as_coordinator.err().find("is the coordinator 'coordinator''s; a node needs a "
                                          "certificate of that role") != std::string::npos,
                as_coordinator.err());
  CHECK_MESSAGE(other_ca.err().find("over TLS: system_error(disconnect_during_handshake)") !=
                    std::string::npos,
                other_ca.err());
  CHECK_MESSAGE(plain.err().find("disconnect_during_handshake") != std::string::npos, plain.err());
  auto& good = cluster.start_node("good", tls(ca, "good"));
  REQUIRE_MESSAGE(cluster.coordinator().wait() == 0, cluster.coordinator().err());
  CHECK_MESSAGE(good.wait() == 0, good.err());
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  REQUIRE(summary["nodes"].size() == 1);  // the refused ones never joined
  CHECK(summary["nodes"][0]["name"] == "good");
  CHECK(node_steps(summary) == summary["env_steps"].get<uint64_t>());
  check_own_count(summary, "good", good);
  const auto& log = cluster.coordinator().err();
  CHECK(log.find("mutual TLS") != std::string::npos);
  // The coordinator names each peer it refused, and why: the rogue refused our certificate, we
  // refused the forged one's, and the plain one sent no TLS at all.
  CHECK_MESSAGE(log.find("refused the TLS peer at 127.0.0.1:") != std::string::npos, log);
  CHECK_MESSAGE(log.find("it did not accept our certificate") != std::string::npos, log);
  CHECK_MESSAGE(log.find("certificate verify failed; its certificate: ") != std::string::npos, log);
  CHECK_MESSAGE(log.find("a peer without TLS?") != std::string::npos, log);
  // The good node's connections closing at the end are no refusals.
  const auto last_refusal = log.rfind("refused the TLS peer");
  CHECK_MESSAGE(last_refusal < log.find("joined as node"), log);
}

TEST_CASE(
    "a user's graph of two env groups with a stage runs across nodes: each node hosts one group's "
    "samplers and runs the stage where its segments are made; a node with another graph is "
    "refused by name") {
  Cluster cluster("groups");
  REQUIRE(cluster.start_coordinator_program(DVLA_GRAPH_PEER, {"coordinator", "60000"}) != 0);
  const auto port = std::to_string(cluster.port());
  // dvla-node builds the default graph: the coordinator's has two groups and a stage.
  auto& other = cluster.start_node("other", {"--samplers", "1", "--set",
                                             "cluster.heartbeat_interval_s=0.2", "--set",
                                             "cluster.connection_timeout_s=2"});
  CHECK(other.wait() == 1);
  CHECK_MESSAGE(
      other.err().find("build the coordinator's graph on every node") != std::string::npos,
      other.err());
  // Whether or not the coordinator has seen the refused one go, a and b get different groups.
  auto& a = cluster.start_node_program("a", DVLA_GRAPH_PEER, {"node", port, "a"});
  auto& b = cluster.start_node_program("b", DVLA_GRAPH_PEER, {"node", port, "b"});
  REQUIRE_MESSAGE(cluster.coordinator().wait() == 0, cluster.coordinator().err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  CHECK_MESSAGE(b.wait() == 0, b.err());
  // The coordinator put a and b in different groups (whichever joined first took the first).
  const auto log = cluster.coordinator().err();
  CHECK_MESSAGE(log.find("of env group 'cartpole'") != std::string::npos, log);
  CHECK_MESSAGE(log.find("of env group 'synthetic-25'") != std::string::npos, log);
  // Both groups collected, the nodes' env steps add up to the run's, and each node's stage passed
  // its segments on.
  std::map<std::string, uint64_t> steps;
  std::istringstream out(cluster.coordinator().out());
  for (std::string kind, name; out >> kind;) {
    uint64_t n = 0;
    if (kind == "total") {
      out >> n;
      steps["total"] = n;
    } else {
      out >> name >> n;
      steps[kind + " " + name] = n;
    }
  }
  CHECK(steps["group cartpole"] > 0);
  CHECK(steps["group synthetic-25"] > 0);
  CHECK(steps["group cartpole"] + steps["group synthetic-25"] == steps["total"]);
  CHECK(steps["node a"] > 0);
  CHECK(steps["node b"] > 0);
  CHECK(steps["node a"] + steps["node b"] == steps["total"]);  // the refused one counted none
  CHECK(steps["total"] >= 60000);
  for (auto* node : {&a, &b}) {
    std::smatch m;
    const auto node_out = node->out();
    REQUIRE_MESSAGE(std::regex_search(node_out, m, std::regex("stage segments ([0-9]+)")),
                    node_out);
    CHECK(std::stoi(m[1]) > 0);
  }
}

TEST_CASE(
    "rogue: over mutual TLS a peer cannot connect without the CA, join under another's name or "
    "the coordinator's certificate, flood the joins, release or start the run, join anonymously "
    "or hand out weights, and a node that misbehaves is cut off; each refusal is logged and "
    "counted, and the run learns CartPole unaffected") {
  Cluster cluster("rogue");
  const auto logdir = cluster.dir() + "/run";
  const auto ca = cluster.dir() + "/ca", other = cluster.dir() + "/other";
  dvla::test::make_cluster_certs(ca, "coordinator a b rogue");
  dvla::test::make_cluster_certs(other, "rogue");
  REQUIRE(cluster.start_coordinator(
              std::vector<std::string>{"--nodes", "2", "--max-env-steps", "500000", "--set",
                                       "eval.every=25", "--set", "cluster.max_refusals=5", "--set",
                                       "cluster.allowed_nodes=a,b,rogue", "--logdir", logdir} +
              tls(ca, "coordinator")) != 0);
  auto& coordinator = cluster.coordinator();
  std::smatch m;
  const auto first_lines = coordinator.err();
  REQUIRE_MESSAGE(std::regex_search(first_lines, m, std::regex("weights plane: port ([0-9]+)")),
                  first_lines);
  const std::string weights_port = m[1];
  // The rogue's identity for each case: none, another CA's, a node certificate of ours, ours of
  // the coordinator (a stolen key: it may not join as a node).
  auto rogue_with = [&](const std::string& dir, const std::string& name) {
    return std::vector<std::string>{dir + "/" + name + ".pem", dir + "/" + name + ".key",
                                    dir + "/ca.pem"};
  };
  auto run_rogue = [&](const std::string& attack, const std::vector<std::string>& identity,
                       const std::string& label) {
    ChildProcess rogue(DVLA_ROGUE,
                       std::vector<std::string>{"127.0.0.1", std::to_string(cluster.port()),
                                                weights_port, attack} +
                           identity,
                       cluster.dir() + "/rogue-" + label);
    CHECK(rogue.wait() == 0);
    MESSAGE(rogue.out());
    return rogue.out() + rogue.err();
  };
  auto& a = cluster.start_node("a", one_sampler + tls(ca, "a"));
  // A join flood before b joins: b joins all the same.
  const auto flooded = run_rogue("flood", rogue_with(ca, "rogue"), "flood");
  // Past cluster.max_refusals (5) the flood's process is disconnected mid-flood: joins it had not
  // sent yet go unsent (a peer silent after its flood would also be dropped, later, by the
  // heartbeats: that leaves none unsent).
  CHECK_MESSAGE(
      std::regex_search(flooded, std::regex("^flood: refused: 100 of 100; a malformed nonce: "
                                            "refused; disconnected \\(exit_reason\\(remote_link_"
                                            "unreachable\\)\\), [1-9][0-9]* joins unsent")),
      flooded);
  auto& b = cluster.start_node("b", one_sampler + tls(ca, "b"));
  REQUIRE_MESSAGE(cluster.wait_until_counted("a"), coordinator.out());  // mid-run
  // Each attack, and how it must be answered (anonymous ones get no answer: the log says).
  const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>> attacks = {
      {"plain", {}, "plain: unreachable: "},
      {"other-ca", rogue_with(other, "rogue"), "other-ca: unreachable: "},
      {"impostor", rogue_with(ca, "rogue"),
       "impostor: refused: not_allowed: a join as node 'a' with the certificate of node 'rogue'"},
      {"impostor", rogue_with(ca, "coordinator"),
       "impostor: refused: not_allowed: a join with the coordinator's certificate"},
      {"release", rogue_with(ca, "rogue"),
       "release: refused: not_allowed: coordinator does not take this message"},
      {"quorum", rogue_with(ca, "rogue"), "quorum: refused"},
      {"join", rogue_with(ca, "rogue"), "join: refused"},
      {"weights", rogue_with(ca, "rogue"), "weights: refused: not_allowed: a message from node "},
      {"chunk", rogue_with(ca, "rogue"), "chunk: refused: not_allowed: a message from node "},
      {"node", rogue_with(ca, "rogue"),
       "node: refused: cut off: the coordinator cut off after 5 refused messages "
       "(cluster.max_refusals); another's sampler: refused ("}};
  int label = 0;
  for (const auto& [attack, identity, answer] : attacks) {
    const auto said = run_rogue(attack, identity, attack + std::to_string(label++));
    CHECK_MESSAGE(said.find(answer) == 0, said);
    if (attack != "node") continue;
    // It reached the control plane (as the sender of its pings) and was refused there.
    CHECK_MESSAGE(said.find("pause all through the control plane: refused (not_allowed: only "
                            "this process commands the control plane)") != std::string::npos,
                  said);
    // Once cut off, it is disconnected at once (within 3 s, where the heartbeats would take 5),
    // and its intake takes nothing more.
    CHECK_MESSAGE(
        said.find("; disconnected (exit_reason(remote_link_unreachable))") != std::string::npos,
        said);
    CHECK_MESSAGE(said.find("; after the cut-off: refused (") != std::string::npos, said);
  }
  REQUIRE_MESSAGE(coordinator.wait() == 0, coordinator.err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  CHECK_MESSAGE(b.wait() == 0, b.err());
  const auto log = coordinator.err();
  // Each refusal named, with what was refused, from whom and why.
  for (const std::string line :
       {"refused message outside the interface from a peer that is no node (CAF node ",
        "refused message outside the interface from a peer that is no node (CAF node "
        "anonymous): a message coordinator does not take",
        "refused join from a peer that is no node (CAF node anonymous): a join from an "
        "anonymous sender",
        "refused the TLS peer at 127.0.0.1:",
        "a peer without TLS?",
        "refused join from a peer that is no node (CAF node ",
        "a join as node 'a' with the certificate of node 'rogue'",
        "a join with the coordinator's certificate (the coordinator 'coordinator'), which is no "
        "node's",
        "a join whose proof of identity fails: its certificate is no PEM certificate",
        "refused challenge from a peer that is no node (CAF node ",
        "a challenge request whose nonce is not 64 lowercase hex digits",
        "node 'a' (its certificate's name, checked;",
        "refused message to the weights plane's door from a peer that is no node (CAF node ",
        "the weights plane's door takes attaches only",
        "refused report from node 'rogue' (CAF node ",
        "a report other than a refusal from node 'rogue'",
        "refused relay place from node 'rogue' (CAF node ",
        "refused segment from node 'rogue' (CAF node ",
        ", which is not node 'rogue''s (samplers ",
        "node 'rogue' cut off after 5 refused messages (cluster.max_refusals)",
        "node 'rogue' disconnected: its connections from 127.0.0.1:"})
    CHECK_MESSAGE(log.find(line) != std::string::npos, line);
  // A refusal line names the peer's address, as its connection has it; the flood's process, no
  // node, was disconnected past the bound.
  for (const std::string line :
       {"refused relay place from node 'rogue' \\(CAF node [0-9a-fA-F#]+, from "
        "127\\.0\\.0\\.1:[0-9]+",
        "refused join from a peer that is no node \\(CAF node [0-9a-fA-F#]+, from "
        "127\\.0\\.0\\.1:[0-9]+\\): a join whose proof of identity fails",
        "a peer that is no node \\(CAF node [0-9a-fA-F#]+\\) disconnected after 5 refused messages "
        "\\(cluster.max_refusals\\): its connections from 127\\.0\\.0\\.1:[0-9]+ ended"})
    CHECK_MESSAGE(std::regex_search(log, std::regex(line)), line);
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  // Strangers': the flood's malformed nonce and its joins until it was disconnected (at least 4,
  // not all 100), the two impostors', release, quorum (outside the door's interface), the
  // anonymous join, the version and the chunk (the weights door's). The rogue node's five (a
  // segment of another's sampler, its report, relay requests) and those still on their way when
  // it was cut off: its own.
  CHECK(summary["refused_strangers"].get<uint64_t>() >= 12);
  CHECK(summary["refused_strangers"].get<uint64_t>() < 108);
  CHECK(summary["rejected_messages"].get<uint64_t>() >= 10);
  REQUIRE(summary["nodes"].size() == 3);
  for (const auto& n : summary["nodes"]) {
    MESSAGE(n.dump());
    if (n["name"] != "rogue") {
      CHECK(n["refused"].get<uint64_t>() == 0);
      continue;
    }
    CHECK(n["state"] == "lost");
    CHECK(n["refused"].get<uint64_t>() >= 5);
    // Its claims of 10^9 counted nothing: at most the one segment of its own it shipped.
    CHECK(n["env_steps"].get<uint64_t>() <= 8 * 32);
    CHECK(n["lost_reason"].get<std::string>().find("cut off") != std::string::npos);
  }
  check_honest_nodes_learned(summary, logdir, a, b);
}

TEST_CASE(
    "rogue noise: random bytes, truncated TLS handshakes and idle connections on every port (the "
    "three planes' and a relay node's) crash nothing and hold little memory; an honest node "
    "joins through them and the run learns CartPole") {
  Cluster cluster("noise");
  const auto logdir = cluster.dir() + "/run";
  const auto ca = cluster.dir() + "/ca";
  dvla::test::make_cluster_certs(ca, "coordinator a b");
  // Fanout 1: b takes its weights from a, through a's relay port.
  REQUIRE(cluster.start_coordinator(std::vector<std::string>{"--nodes", "2", "--max-env-steps",
                                                             "500000", "--set", "eval.every=25",
                                                             "--set", "distribution.fanout=1",
                                                             "--logdir", logdir} +
                                    tls(ca, "coordinator")) != 0);
  auto& coordinator = cluster.coordinator();
  auto& a = cluster.start_node("a", one_sampler + tls(ca, "a"));
  const std::regex relay_line("relays weights to the nodes below it on 127\\.0\\.0\\.1:([0-9]+)");
  REQUIRE_MESSAGE(
      a.wait_for_err([&](const std::string& e) { return std::regex_search(e, relay_line); }),
      a.err());
  std::smatch m;
  const auto a_log = a.err();
  REQUIRE(std::regex_search(a_log, m, relay_line));
  const auto relay_port = static_cast<uint16_t>(std::stoi(m[1]));
  const auto first_lines = coordinator.err();
  REQUIRE(std::regex_search(first_lines, m,
                            std::regex("data plane: port ([0-9]+); weights plane: "
                                       "port ([0-9]+)")));
  const std::vector<uint16_t> ports = {cluster.port(), static_cast<uint16_t>(std::stoi(m[1])),
                                       static_cast<uint16_t>(std::stoi(m[2])), relay_port};
  const auto coordinator_before = dvla::test::resident_kib(coordinator.pid());
  const auto a_before = dvla::test::resident_kib(a.pid());
  std::mt19937 rng(7);
  // The honest nodes dial from 127.0.0.1; a rogue from 127.0.0.2 opens 50 idle connections to
  // each port (the coordinator's process keeps 64 of its 150, cluster.max_connections_per_address,
  // each until cluster.tls.handshake_timeout_s); another from 127.0.0.3 sends noise.
  std::vector<Connection> idle;
  for (const auto port : ports) {
    for (int i = 0; i < 50; ++i) {
      idle.emplace_back(port, "127.0.0.2");
      CHECK(idle.back().open());
    }
    for (int i = 0; i < 20; ++i) {
      Connection(port, "127.0.0.3").send_bytes(dvla::test::random_bytes(rng, 4096));
      Connection(port, "127.0.0.3").send_bytes(dvla::test::truncated_client_hello(rng));
    }
  }
  // With those connections open that say nothing, b joins and takes its weights through a.
  auto& b = cluster.start_node("b", one_sampler + tls(ca, "b"));
  REQUIRE_MESSAGE(cluster.wait_until_counted("b"), coordinator.out(), b.err());
  const auto coordinator_growth = dvla::test::resident_kib(coordinator.pid()) - coordinator_before;
  const auto a_growth = dvla::test::resident_kib(a.pid()) - a_before;
  MESSAGE("resident memory grew by ", coordinator_growth, " KiB (coordinator), ", a_growth,
          " KiB (node a)");
  // The run's own growth in this time (a second node's buffers, the learner's batches) is tens of
  // MiB; a leak per connection or per byte of noise would be far beyond this.
  CHECK(coordinator_growth < 256 * 1024);
  CHECK(a_growth < 256 * 1024);
  // Each process ended the idle connections it kept once their handshake was overdue.
  CHECK(dvla::test::closed_by_peer(idle, idle.size()) == idle.size());
  idle.clear();
  REQUIRE_MESSAGE(coordinator.wait() == 0, coordinator.err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  CHECK_MESSAGE(b.wait() == 0, b.err());
  const auto log = coordinator.err();
  CHECK_MESSAGE(log.find("a peer without TLS?") != std::string::npos, log);
  CHECK_MESSAGE(log.find("node 'b' takes its weights from a (127.0.0.1:" +
                         std::to_string(relay_port)) != std::string::npos,
                log);
  CHECK_MESSAGE(log.find("refused a TLS connection from 127.0.0.2:") != std::string::npos, log);
  for (const auto& process_log : {log, a.err()})
    CHECK_MESSAGE(process_log.find("closed a TLS connection from 127.0.0.2: no handshake within "
                                   "10 s") != std::string::npos,
                  process_log);
  CHECK_MESSAGE(a.err().find("refused the TLS peer at 127.0.0.3:") != std::string::npos, a.err());
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  // At least the 86 over the bound and the 64 overdue of the rogue's (and the noise's, some).
  CHECK(summary["refused_connections"].get<uint64_t>() >= 150);
  REQUIRE(summary["nodes"].size() == 2);
  for (const auto& n : summary["nodes"]) CHECK(n["state"] == "running");
  check_honest_nodes_learned(summary, logdir, a, b);
}

TEST_CASE(
    "rogue connections: a process keeps at most cluster.max_connections_per_address TLS "
    "connections from one address (the rest refused at once, said once, counted), frees a slot "
    "when one closes, ends a handshake overdue after cluster.tls.handshake_timeout_s; a node from "
    "another address joins") {
  Cluster cluster("connections");
  const auto ca = cluster.dir() + "/ca";
  dvla::test::make_cluster_certs(ca, "coordinator a");
  REQUIRE(cluster.start_coordinator(
              std::vector<std::string>{"--nodes", "1", "--max-env-steps", "20000", "--set",
                                       "eval.episodes=0", "--set",
                                       "cluster.max_connections_per_address=16", "--set",
                                       "cluster.tls.handshake_timeout_s=5"} +
              tls(ca, "coordinator")) != 0);
  auto& coordinator = cluster.coordinator();
  const char* rogue = "127.0.0.2";
  // 50 idle connections: the first 16 kept, 34 closed at once.
  std::vector<Connection> idle;
  for (int i = 0; i < 50; ++i) {
    idle.emplace_back(cluster.port(), rogue);
    REQUIRE(idle.back().open());
  }
  CHECK(dvla::test::closed_by_peer(idle, 34) == 34);
  for (size_t i = 0; i < idle.size(); ++i) CHECK_MESSAGE(idle[i].closed_by_peer() == (i >= 16), i);
  // The 16 kept are ended when their handshake is overdue.
  CHECK(dvla::test::closed_by_peer(idle, 50) == 50);
  uint64_t refused = 50;
  idle.clear();
  // Their slots free again (once the coordinator has seen them go: tried again until then), 16
  // of 20 new ones are kept.
  bool kept = false;
  for (int attempt = 0; attempt < 10 && !kept; ++attempt) {
    std::vector<Connection> again;
    for (int i = 0; i < 20; ++i) again.emplace_back(cluster.port(), rogue);
    const auto closed = dvla::test::closed_by_peer(again, 4);
    refused += closed;
    kept = closed == 4;
    for (size_t i = 0; kept && i < again.size(); ++i)
      CHECK_MESSAGE(again[i].closed_by_peer() == (i >= 16), i);
    again.clear();
    usleep(500000);
  }
  CHECK(kept);
  // A node (from 127.0.0.1) joins and the run finishes.
  auto& a = cluster.start_node("a", one_sampler + tls(ca, "a"));
  REQUIRE_MESSAGE(coordinator.wait() == 0, coordinator.err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  const auto log = coordinator.err();
  // Said once while the address held connections: for the 34, and again after all were gone.
  CHECK_MESSAGE(count_matches(log,
                              "refused a TLS connection from 127\\.0\\.0\\.2:[0-9]+: 16 "
                              "connections from that address are open") >= 2,
                log);
  CHECK_MESSAGE(count_matches(log,
                              "closed a TLS connection from 127\\.0\\.0\\.2: no handshake "
                              "within 5 s") == 1,
                log);
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  CHECK(summary["refused_connections"].get<uint64_t>() == refused);
  REQUIRE(summary["nodes"].size() == 1);
  CHECK(summary["nodes"][0]["name"] == "a");
  CHECK(summary["env_steps"].get<uint64_t>() >= 20000);
}

TEST_CASE(
    "a node outlives its coordinator: it dials again and joins the coordinator resumed from the "
    "run's logdir, which finishes the run with it") {
  Cluster cluster("rejoin");
  const auto logdir = cluster.dir() + "/run";
  // The resumed coordinator listens on the same port and the two after it: three free ports
  // below the ephemeral range, which the node's own connections (dialling again) cannot take.
  const auto port = free_port_triple();
  REQUIRE(port != 0);
  REQUIRE(cluster.start_coordinator_program(
              DVLA_PPO, std::vector<std::string>{"--listen", "127.0.0.1:" + std::to_string(port),
                                                 "--json", "--nodes", "1", "--max-env-steps",
                                                 "300000", "--set", "checkpoint.every=5", "--set",
                                                 "eval.episodes=2", "--logdir", logdir} +
                            heartbeats) == port);
  auto& a =
      cluster.start_node("a", one_sampler + heartbeats +
                                  std::vector<std::string>{"--set", "cluster.rejoin_timeout_s=60"});
  REQUIRE_MESSAGE(cluster.wait_until_counted("a"), cluster.coordinator().out());
  // A whole checkpoint to resume from: checkpoints/latest names one once it is in place (the
  // directory holds a vN.tmp while one is being written: a kill then leaves nothing to resume).
  const auto latest = fs::path(logdir) / "checkpoints" / "latest";
  REQUIRE(cluster.coordinator().wait_for_err([&](const std::string&) {
    std::error_code ec;
    return fs::exists(latest, ec);
  }));
  cluster.coordinator().signal(SIGKILL);
  CHECK(cluster.coordinator().wait() == 128 + SIGKILL);
  REQUIRE_MESSAGE(a.wait_for_err([](const std::string& e) {
    return e.find("dialling it again for up to cluster.rejoin_timeout_s = 60 s") !=
           std::string::npos;
  }),
                  a.err());
  // The run resumed on the same address, without restarting the node.
  REQUIRE_MESSAGE(cluster.start_coordinator_program(
                      DVLA_PPO, std::vector<std::string>{"--resume", logdir, "--listen",
                                                         "127.0.0.1:" + std::to_string(port),
                                                         "--json", "--nodes", "1"} +
                                    heartbeats) == port,
                  cluster.coordinator().err());
  REQUIRE_MESSAGE(cluster.coordinator().wait() == 0, cluster.coordinator().err());
  CHECK_MESSAGE(a.wait() == 0, a.err());
  const auto log = a.err();
  const auto joined = log.find("joined the coordinator at");
  REQUIRE(joined != std::string::npos);
  CHECK_MESSAGE(log.find("joined the coordinator at", joined + 1) != std::string::npos, log);
  CHECK(log.find("released: the run is over") != std::string::npos);
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  REQUIRE(summary["nodes"].size() == 1);
  CHECK(summary["nodes"][0]["name"] == "a");
  CHECK(summary["env_steps"].get<uint64_t>() >= 300000);
  CHECK(node_steps(summary) > 0);
  check_own_count(summary, "a", a);
}

TEST_CASE(
    "a node refuses a coordinator posing with a node's certificate, and one whose certificate is "
    "not for the address it dialled unless cluster.tls.check_address=false") {
  Cluster cluster("coordinator-identity");
  const auto ca = cluster.dir() + "/ca";
  dvla::test::make_cluster_certs(ca, "coordinator a b rogue");
  const std::vector<std::string> brief = {"--set", "cluster.join_timeout_s=5"};
  {
    ChildProcess rogue(
        DVLA_ROGUE,
        {"127.0.0.1", "0", "0", "pose", ca + "/rogue.pem", ca + "/rogue.key", ca + "/ca.pem"},
        cluster.dir() + "/pose");
    std::smatch m;
    const std::regex listening("pose: listening on ([0-9]+)");
    REQUIRE_MESSAGE(
        rogue.wait_for_out([&](const std::string& o) { return std::regex_search(o, listening); }),
        rogue.err());
    const auto out = rogue.out();
    REQUIRE(std::regex_search(out, m, listening));
    auto& a = cluster.start_node_program(
        "a", DVLA_NODE,
        std::vector<std::string>{"--coordinator", "127.0.0.1:" + m[1].str()} + tls(ca, "a") +
            brief);
    CHECK(a.wait() == 1);
    CHECK_MESSAGE(a.err().find("is node 'rogue': a node's certificate cannot act as the "
                               "coordinator") != std::string::npos,
                  a.err());
    CHECK(rogue.out().find("TAKEN") == std::string::npos);
    rogue.signal(SIGTERM);
  }
  // A coordinator on 127.0.0.2: its certificate is for 127.0.0.1, localhost and this machine.
  REQUIRE(cluster.start_coordinator_program(
              DVLA_PPO,
              std::vector<std::string>{"--listen", "127.0.0.2:0", "--json", "--nodes", "1",
                                       "--max-env-steps", "20000", "--set", "eval.episodes=2"} +
                  tls(ca, "coordinator")) != 0);
  const auto at = "127.0.0.2:" + std::to_string(cluster.port());
  auto& strict = cluster.start_node_program(
      "a", DVLA_NODE, std::vector<std::string>{"--coordinator", at} + tls(ca, "a") + brief);
  CHECK(strict.wait() == 1);
  CHECK_MESSAGE(strict.err().find("not for 127.0.0.2") != std::string::npos, strict.err());
  CHECK_MESSAGE(strict.err().find("cluster.tls.check_address=false") != std::string::npos,
                strict.err());
  auto& trusting = cluster.start_node_program(
      "b", DVLA_NODE,
      std::vector<std::string>{"--coordinator", at, "--samplers", "1", "--set",
                               "cluster.tls.check_address=false"} +
          tls(ca, "b"));
  REQUIRE_MESSAGE(cluster.coordinator().wait() == 0, cluster.coordinator().err());
  CHECK_MESSAGE(trusting.wait() == 0, trusting.err());
  const auto summary = cluster.summary();
  REQUIRE(summary.is_object());
  REQUIRE(summary["nodes"].size() == 1);
  CHECK(summary["nodes"][0]["name"] == "b");
}
