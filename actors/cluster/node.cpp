#include <dvla/actors/cluster/node.hpp>

#include <fmt/core.h>
#include <fmt/format.h>
#include <torch/cuda.h>
#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <dvla/actors/cluster/uplink.hpp>
#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/distribution/relay_door.hpp>
#include <dvla/actors/graph/graph_builder.hpp>
#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/blocking_ask.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/sender_check.hpp>
#include <dvla/runtime/cluster/cluster_credentials.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/cluster/node_info.hpp>
#include <dvla/runtime/config/cluster_address.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/platform/blas_info.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>

namespace dvla {
namespace {

using namespace dvla::actors;

// How often the node looks at its stop requests while it waits for messages.
constexpr auto idle_check = std::chrono::milliseconds(200);

// The node's control-plane actor, which the coordinator watches, reroutes and releases: it passes
// a new weights source and the release on to the node's main thread (`main`).
// Only the coordinator's process may release or reroute it: the agent is reachable by its handle
// from every peer the node talks to (a relay neighbour too).
node_actor::behavior_type node_agent(node_actor::pointer self, caf::actor main,
                                     caf::node_id coordinator) {
  self->set_default_handler(
      [](caf::scheduled_actor* self, caf::message_view&) -> caf::result<caf::message> {
        report_rejected({}, "node agent", "a message it does not take, from " + sender_text(self));
        return make_error(errc::not_allowed, "the node agent does not take this message");
      });
  return {
      [self, main, coordinator](shutdown_atom a, const std::string& why) -> caf::result<bool> {
        if (!from_process_of(self, coordinator)) {
          report_rejected(
              {}, "node agent",
              "a shutdown from " + sender_text(self) + ", which is not the coordinator");
          return make_error(errc::not_allowed, "only the coordinator releases a node");
        }
        caf::anon_send(main, a, why);
        return true;
      },
      [self, main, coordinator](relay_atom a, const WeightsSource& source) {
        if (!from_process_of(self, coordinator))
          return report_rejected(
              {}, "node agent",
              "a new weights source from " + sender_text(self) + ", which is not the coordinator");
        caf::anon_send(main, a, source);
      },
  };
}

// Whether the node's graph is the coordinator's (the same env groups, pools and stages): a node
// hosts part of the coordinator's graph, so it must build the same one.
Status same_graph(const Graph& graph, const NodeAssignment& a) {
  if (const auto here = graph_shape(graph); here != a.graph_shape)
    return Error("this node's graph is not the coordinator's: build the coordinator's graph on "
                 "every node (here " + here + "; the coordinator's " + a.graph_shape + ")");
  return Status::ok();
}

// Calls `attempt` (an Expected<T>) every half second until it succeeds, `stop()` holds, or
// `timeout_s` passed: a peer that is not up yet, or too busy to finish a handshake in time, is no
// reason to give up. The error, after `what`, names the attempts and each distinct failure seen
// (a TLS refusal says more than an attempt cut short by the deadline, whichever came last).
template <class T, class Attempt, class Stop>
Expected<T> retry(Attempt attempt, Stop stop, double timeout_s, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::vector<std::string> seen;
  for (int n = 1;; ++n) {
    Expected<T> got = attempt();
    if (got) return got;
    if (auto why = got.error().message();
        seen.size() < 4 && std::find(seen.begin(), seen.end(), why) == seen.end())
      seen.push_back(std::move(why));
    if (auto stopped = stop(); !stopped.empty()) return Error(stopped);
    if (std::chrono::steady_clock::now() >= deadline)
      return Error(fmt::format("{} ({} attempts): {}", what, n, fmt::join(seen, "; ")));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// Dials the coordinator until it answers or `timeout_s` passed (it may start later, or come
// back). `lost`: the coordinator this node lost, if any — CAF may still hand out its cached
// handle for the address until it has noticed the connection is gone; that is no coordinator yet.
Expected<coordinator_actor> dial(PlaneSystems& planes, const NodeSetup& setup, double timeout_s,
                                 const std::string& timeout_key, const RunRequests* requests,
                                 const caf::node_id& lost) {
  return retry<coordinator_actor>(
      [&]() -> Expected<coordinator_actor> {
        auto c = planes.connect<coordinator_actor>(planes.control(), setup.coordinator.host,
                                                   setup.coordinator.port);
        if (c && lost && c->node() == lost)
          return Error("only the coordinator that was lost answers (not yet noticed gone)");
        return c;
      },
      [&] {
        return requests && requests->stop_requested()
                   ? std::string("asked to stop while dialling the coordinator")
                   : std::string();
      },
      timeout_s, fmt::format("no coordinator within {} = {} s", timeout_key, timeout_s));
}

// Everything the node spawned, by address: watched for failures, stopped at the end.
struct Watched {
  std::map<caf::actor_addr, std::string> names;
  std::vector<caf::actor> actors;

  void add(caf::scoped_actor& self, const std::string& name, const caf::actor& a) {
    self->monitor(a);
    names[a.address()] = name;
    actors.push_back(a);
  }
  void stop_all() {
    for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }
};

// The name the node joins under: with TLS its certificate's (a --name that disagrees is an
// error), else --name or HOST/PID.
Expected<std::string> name_of(const NodeSetup& setup,
                              const std::optional<ClusterCredentials>& credentials) {
  if (!credentials) return setup.name;
  const auto& certified = credentials->key.identity().name;
  if (!setup.name.empty() && setup.name != certified)
    return Error("--name '" + setup.name + "' is not the name of this node's certificate ('" +
                 certified + "', cluster.tls.certificate " + setup.cluster.tls_certificate +
                 "): a node is its certificate's name (leave --name out, or give that one)");
  return certified;
}

// Whether the coordinator's answer to our nonce proves it is the coordinator of our CA, at the
// address dialled (unless cluster.tls.check_address is off).
Status check_coordinator(const NodeSetup& setup, const ClusterCredentials& credentials,
                         const std::string& nonce, const IdentityProof& proof) {
  const auto where = "the coordinator at " + setup.coordinator.text();
  auto identity = credentials.check.verify(proof, coordinator_statement(nonce));
  if (!identity) return identity.error().within(where + " did not prove who it is");
  if (identity->role != PeerRole::coordinator)
    return Error(where + " is " + describe(*identity) +
                 ": a node's certificate cannot act as the coordinator");
  if (!setup.cluster.tls_check_address) return Status::ok();
  if (auto host = check_certificate_host(proof.certificate, setup.coordinator.host); !host)
    return host.error().within(
        where + " is not the coordinator at the address dialled: " +
        "make its certificate with DVLA_CERT_HOSTS naming that address (scripts/cluster-certs.sh), "
        "or set cluster.tls.check_address=false");
  return Status::ok();
}

class Node {
 public:
  Node(const NodeSetup& setup, PlaneSystems& planes, std::optional<ClusterCredentials> credentials,
       std::string name)
      : setup_(setup),
        credentials_(std::move(credentials)),
        name_(std::move(name)),
        planes_(planes),
        self_(planes.control()),
        data_self_(planes.data()),
        weights_self_(planes.weights()) {}

  // Joins (dialling for `dial_timeout_s`, named by `timeout_key`), builds its part, collects
  // until released, stopped, or the coordinator is lost (then lost_coordinator()).
  Expected<NodeOutcome> run(const RunRequests* requests, double dial_timeout_s,
                            const std::string& timeout_key, const caf::node_id& lost) {
    auto joined = join(dial_timeout_s, timeout_key, requests, lost);
    if (!joined) return joined.error();
    auto built = build();
    if (!built) return (watched_.stop_all(), built.error());
    auto started = start();
    if (!started) return (watched_.stop_all(), started.error());
    auto outcome = serve(requests);
    watched_.stop_all();
    return outcome;
  }

  void log(const std::string& line) const {
    if (setup_.log) return setup_.log(line);
    fmt::print(stderr, "dvla-node {}: {}\n", name_, line);
  }
  const std::string& where() const { return address_; }

  bool lost_coordinator() const { return lost_coordinator_; }
  caf::node_id coordinator_node() const { return coordinator_.node(); }

 private:
  Status join(double dial_timeout_s, const std::string& timeout_key, const RunRequests* requests,
              const caf::node_id& lost) {
    address_ = setup_.coordinator.text();
    auto coordinator = dial(planes_, setup_, dial_timeout_s, timeout_key, requests, lost);
    if (!coordinator) return coordinator.error();
    coordinator_ = *coordinator;
    self_->monitor(coordinator_);
    agent_ = planes_.control().spawn(node_agent, caf::actor_cast<caf::actor>(self_),
                                     coordinator_.node());
    watched_.add(self_, "node agent", caf::actor_cast<caf::actor>(agent_));
    auto info = describe_this_process(name_);
    info.gpus = static_cast<uint32_t>(torch::cuda::device_count());
    info.samplers = setup_.samplers;
    name_ = info.name;
    host_ = info.host;
    auto proof = prove_identity(info.name);
    if (!proof) return proof.error();
    auto answer = ask<NodeAssignment, node_reports_actor>(
        self_, coordinator_, setup_.cluster.join_timeout_s,
        "the coordinator at " + where() + " did not take the node", join_atom::value, info, agent_,
        proof->coordinator_nonce, proof->proof);
    if (!answer) return answer.error();
    std::tie(assignment_, reports_) = std::move(*answer);
    auto config = node_config(assignment_, setup_.cluster);
    if (!config) return config.error();
    config_ = std::move(*config);
    config_.graph.inference_replicas = static_cast<int>(assignment_.replicas);
    // BLAS's own pool as a one-process run caps it (train()): left at OpenBLAS's default of a
    // thread per core, its worker spun between the replicas' calls and took half of a 2-core
    // node's CPU from its samplers (docs/results.md, "BLAS threads on a node").
    use_graph_threads(config_.graph);
    log(fmt::format("joined the coordinator at {} as node {}; BLAS: {}", where(), assignment_.node,
                    blas_text()));
    return Status::ok();
  }

  // The coordinator's nonce for this process, and the proof of this node's identity over it and
  // its name (empty without TLS).
  struct JoinProof {
    std::string coordinator_nonce;
    IdentityProof proof;
  };

  // Asks the coordinator for a nonce and, with TLS, checks it is the coordinator.
  Expected<JoinProof> prove_identity(const std::string& name) {
    const auto nonce = fresh_nonce();
    auto answer = ask<std::string, IdentityProof>(
        self_, coordinator_, setup_.cluster.join_timeout_s,
        "the coordinator at " + where() + " did not answer the join", challenge_atom::value, nonce);
    if (!answer) return answer.error();
    auto& [coordinator_nonce, coordinator_proof] = *answer;
    if (!credentials_) return JoinProof{std::move(coordinator_nonce), {}};
    if (auto checked = check_coordinator(setup_, *credentials_, nonce, coordinator_proof); !checked)
      return checked.error();
    auto proof = credentials_->key.prove(join_statement(coordinator_nonce, name));
    if (!proof) return proof.error();
    return JoinProof{std::move(coordinator_nonce), std::move(*proof)};
  }

  Status build() {
    auto gate = planes_.connect<segment_gate_actor>(planes_.data(), setup_.coordinator.host,
                                                    assignment_.data_port);
    if (!gate) return gate.error().within("the coordinator's data plane");
    gate_ = *gate;
    auto intake = ask<segment_intake_actor>(data_self_, gate_, config_.run.message_timeout_s,
                                            "the coordinator's data plane", join_atom::value,
                                            assignment_.node, assignment_.name);
    if (!intake) return intake.error();
    const auto segment_intake = std::get<0>(*intake);
    BuildContext context;
    context.config = config_;
    context.supervisor = caf::actor_cast<caf::actor>(reports_);
    context.control_system = &planes_.control();
    context.weights_system = &planes_.weights();
    context.placement = BuildContext::SamplerPlacement{
        assignment_.first_sampler, assignment_.samplers, assignment_.group};
    context.watch = [this](const std::string& name, const caf::actor& a) {
      watched_.add(self_, name, a);
    };
    context.node_uplink = [this, segment_intake](const std::string& sampler) {
      auto uplink = spawn_uplink(
          planes_.data(),
          {sampler, segment_intake, caf::actor_cast<caf::actor>(reports_), acknowledged_});
      watched_.add(self_, "uplink/" + sampler, caf::actor_cast<caf::actor>(uplink));
      return uplink;
    };
    try {
      const auto graph = setup_.make_graph ? setup_.make_graph(config_)
                                           : graph_of(config_, default_graph_parts(config_));
      if (auto same = same_graph(graph, assignment_); !same) return same.error();
      graph_ = build_graph(planes_.data(), graph, context);
      if (graph_.placement) {
        log("placement (graph.placement = auto) on " + graph_.placement->topology() + ": " +
            graph_.placement->plan());
        if (const auto memory = graph_.placement->memory_text(); !memory.empty())
          log("replica weight buffers: " + memory);
      }
    } catch (const std::exception& e) {
      return Error(std::string("building the node's part of the graph failed: ") + e.what());
    }
    return Status::ok();
  }

  // Publishes the node's distributor on the weights plane (the nodes it will relay to attach
  // there) and asks the coordinator where its own weights come from.
  Expected<WeightsSource> take_relay_place() {
    const auto host = relay_host();
    // The nodes below attach through a door that takes attaches only.
    relay_door_ = spawn_relay_door(planes_.weights(), graph_.distributor,
                                   caf::actor_cast<caf::actor>(reports_));
    watched_.add(self_, "relay door", caf::actor_cast<caf::actor>(relay_door_));
    auto port = planes_.publish(relay_door_, host, 0);
    if (!port) return port.error().within("the node's weights plane");
    log(fmt::format("relays weights to the nodes below it on {}:{}", host, *port));
    auto answer = ask<WeightsSource>(self_, coordinator_, config_.run.message_timeout_s,
                                     "the coordinator did not place the node in the relay tree",
                                     relay_atom::value, assignment_.node,
                                     WeightsSource{assignment_.name, host, *port});
    if (!answer) return answer.error();
    return std::get<0>(std::move(*answer));
  }

  // Where nodes that take their weights from this one reach it: --relay-host, else 127.0.0.1
  // when the coordinator is on this machine's loopback, else this host's name.
  std::string relay_host() const {
    if (!setup_.relay_host.empty()) return setup_.relay_host;
    const auto& c = setup_.coordinator.host;
    if (c == "127.0.0.1" || c == "localhost") return "127.0.0.1";
    return host_;
  }

  // Attaches the node's distributor under `source`'s; the answer is the version it has once the
  // current weights crossed (a source with none yet answers with its first).
  Expected<uint64_t> take_weights_from(const WeightsSource& source) {
    const auto& host = source.host.empty() ? setup_.coordinator.host : source.host;
    // Dialled again for up to cluster.join_timeout_s: a source busy with many connections (CAF
    // spins on each unfinished handshake) may not finish ours within CAF's handshake timeout.
    const auto timeout_s = setup_.cluster.join_timeout_s;
    auto upstream = retry<relay_door_actor>(
        [&] { return planes_.connect<relay_door_actor>(planes_.weights(), host, source.port); },
        [] { return std::string(); }, timeout_s,
        fmt::format("not reached within cluster.join_timeout_s = {} s", timeout_s));
    if (!upstream) return upstream.error().within("the weights of " + source.text());
    // Chunks are taken from that process only, from now on.
    weights_self_->send(graph_.distributor, parent_atom::value, upstream->node());
    auto weights = ask<uint64_t>(weights_self_, *upstream, config_.run.message_timeout_s,
                                 "getting the current weights from " + source.text(),
                                 attach_atom::value, assignment_.name,
                                 caf::actor_cast<caf::actor>(graph_.distributor));
    if (!weights) return weights.error();
    return std::get<0>(*weights);
  }

  // The current weights first (through the distributor), then the samplers.
  Status start() {
    auto source = take_relay_place();
    if (!source) return source.error();
    auto weights = take_weights_from(*source);
    if (!weights) return weights.error();
    const double wait_s = setup_.cluster.join_timeout_s + config_.run.message_timeout_s;
    auto ready =
        ask<uint32_t>(self_, coordinator_, wait_s, "the coordinator did not start the node",
                      ready_atom::value, assignment_.node, graph_.endpoints);
    if (!ready) return ready.error();
    start_samplers(graph_);
    const auto& a = assignment_;
    log(fmt::format("started with weights version {} from {}: samplers {}..{} of env group '{}' "
                    "x {} envs, {} replica(s)",
                    *weights, source->text(), a.first_sampler, a.first_sampler + a.samplers - 1,
                    a.group_name, a.envs_per_sampler, a.replicas));
    return Status::ok();
  }

  Expected<NodeOutcome> serve(const RunRequests* requests) {
    Expected<NodeOutcome> outcome = Error("not ended");
    bool done = false;
    while (!done) {
      self_->receive(
          [&](shutdown_atom, const std::string& why) {
            outcome = NodeOutcome{assignment_.node, why};
            done = true;
          },
          [&](relay_atom, const WeightsSource& source) {
            // The relay it took its weights from was lost: without a new source it would act
            // with ever older weights, so failing to reach one ends the node.
            auto weights = take_weights_from(source);
            if (!weights) {
              outcome = weights.error().within("its relay was lost, and a new weights source");
              done = true;
              return;
            }
            log(fmt::format("takes its weights from {} now (its relay was lost); it holds "
                            "version {}",
                            source.text(), *weights));
          },
          [&](caf::down_msg& down) {
            done = true;
            if (down.source == coordinator_.address()) {
              lost_coordinator_ = true;
              outcome = Error("lost the coordinator at " + where() + ": " + describe(down.reason));
              return;
            }
            const auto it = watched_.names.find(down.source);
            const auto name = it == watched_.names.end() ? std::string("an actor") : it->second;
            outcome = Error(name + " stopped: " + describe(down.reason));
          },
          caf::after(idle_check) >>
              [&] {
                if (requests && requests->stop_requested()) {
                  outcome = NodeOutcome{assignment_.node, "stop request"};
                  done = true;
                }
              });
    }
    if (outcome)
      log(fmt::format("released: {}; the learner acknowledged {} env steps of this node",
                      outcome->why, acknowledged_->load()));
    return outcome;
  }

  const NodeSetup& setup_;
  std::optional<ClusterCredentials> credentials_;  // with TLS: who it is, and its CA
  std::string name_;
  PlaneSystems& planes_;
  caf::scoped_actor self_;       // control plane: the coordinator, the agent, watching
  caf::scoped_actor data_self_;  // data plane: the gate (its handles cross on that connection)
  caf::scoped_actor weights_self_;  // weights plane: the distributor it takes its weights from
  std::string address_, host_;
  coordinator_actor coordinator_;
  segment_gate_actor gate_;
  node_actor agent_;
  relay_door_actor relay_door_;
  NodeAssignment assignment_;
  node_reports_actor reports_;  // where it reports: no peer holds the supervisor
  // Env steps of this node's segments the learner acknowledged, by the node's own count.
  std::shared_ptr<std::atomic<uint64_t>> acknowledged_ = std::make_shared<std::atomic<uint64_t>>(0);
  Config config_;
  BuiltGraph graph_;
  Watched watched_;
  bool lost_coordinator_ = false;
};

// Stops the node's actor systems; if that takes longer than `limit_s`, ends the process with
// `status` and a message. CAF 0.17's teardown waits for every detached actor to be released;
// once in 20 runs a node that had been hung (SIGSTOP) and resumed after its coordinator was gone
// kept one referenced and waited forever. The node's work is over by then: a message and the
// outcome's status beat a hang.
// `outcome` is said first: the caller will not get to say it.
void stop_systems(std::unique_ptr<PlaneSystems> planes, double limit_s, int status,
                  const std::string& outcome) {
  auto stopped = std::make_shared<std::promise<void>>();
  std::thread watchdog([done = stopped->get_future(), limit_s, status, outcome]() {
    if (done.wait_for(std::chrono::duration<double>(limit_s)) == std::future_status::ready) return;
    fmt::print(stderr,
               "dvla-node: {}; the actor systems did not stop within {} s (an actor is still "
               "referenced): exiting with status {}\n",
               outcome, limit_s, status);
    std::fflush(stderr);
    std::_Exit(status);
  });
  planes.reset();
  stopped->set_value();
  watchdog.join();
}

// Runs the node; one that lost its coordinator dials it again for cluster.rejoin_timeout_s and
// joins it once it is back (resumed from its logdir), in the same actor systems, with a graph
// built afresh. Released, stopped, failed, or no coordinator in time: that outcome.
Expected<NodeOutcome> run_until_released(const NodeSetup& setup, PlaneSystems& planes,
                                         const std::optional<ClusterCredentials>& credentials,
                                         const std::string& name, const RunRequests* requests) {
  double dial_timeout_s = setup.cluster.join_timeout_s;
  std::string timeout_key = "cluster.join_timeout_s";
  caf::node_id lost;
  for (;;) {
    Node node(setup, planes, credentials, name);
    auto outcome = node.run(requests, dial_timeout_s, timeout_key, lost);
    if (outcome || !node.lost_coordinator()) return outcome;
    lost = node.coordinator_node();
    const auto rejoin_s = setup.cluster.rejoin_timeout_s;
    if (rejoin_s <= 0)
      return Error(outcome.error().message() + "; the node stops (cluster.rejoin_timeout_s = 0)");
    if (requests && requests->stop_requested())
      return Error(outcome.error().message() + "; the node stops (asked to)");
    const auto line = outcome.error().message() +
                      fmt::format(
                          "; dialling it again for up to cluster.rejoin_timeout_s = {} s "
                          "(a coordinator resumed from the run's logdir takes it back)",
                          rejoin_s);
    if (setup.log)
      setup.log(line);
    else
      fmt::print(stderr, "dvla-node{}{}: {}\n", name.empty() ? "" : " ", name, line);
    dial_timeout_s = rejoin_s;
    timeout_key = "cluster.rejoin_timeout_s";
  }
}

}  // namespace

Status check_node_transport(const NodeSetup& setup) {
  if (auto s = check_transport_security(setup.cluster, setup.coordinator.host,
                                        "the coordinator " + setup.coordinator.text());
      !s)
    return s;
  if (setup.relay_host.empty()) return Status::ok();
  return check_transport_security(setup.cluster, setup.relay_host,
                                  "the relay listener --relay-host " + setup.relay_host);
}

Expected<NodeOutcome> run_node(const NodeSetup& setup, const RunRequests* requests) {
  if (auto secure = check_node_transport(setup); !secure) return secure.error();
  auto credentials = load_credentials(setup.cluster, PeerRole::node);
  if (!credentials) return credentials.error().within("this node's identity");
  auto name = name_of(setup, *credentials);
  if (!name) return name.error();
  if (!setup.cluster.tls() && !is_loopback_host(setup.coordinator.host))
    fmt::print(stderr,
               "dvla-node: WARNING: plain TCP beyond loopback (cluster.insecure=true): anyone on "
               "the path can read or change this node's traffic\n");
  std::unique_ptr<PlaneSystems> planes;
  try {
    planes = std::make_unique<PlaneSystems>(true, static_cast<size_t>(setup.scheduler_threads),
                                            NetworkOptions::of(setup.cluster));
  } catch (const std::exception& e) {
    return Error(e.what());
  }
  auto outcome = run_until_released(setup, *planes, *credentials, *name, requests);
  stop_systems(std::move(planes), setup.teardown_timeout_s, outcome ? 0 : 1,
               outcome ? outcome->why : outcome.error().message());
  return outcome;
}

}  // namespace dvla
