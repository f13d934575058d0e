// dvla-node: a node of a multi-node run. Joins the coordinator (dvla-ppo --listen), hosts the
// samplers, inference replicas and distributor it is assigned, and collects until the run is
// over. docs/multi-node.md shows a cluster on one machine and on several.
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <dvla/actors/cluster/node.hpp>
#include "common/command_line.hpp"
#include "common/run_signals.hpp"

namespace {

std::string help() {
  std::string text =
      "dvla-node: join a multi-node dvla run as a node: host samplers, inference replicas and a\n"
      "distributor; observations and actions stay here, segments go to the coordinator's\n"
      "learner, weights come from it (directly, or through another node: a relay tree).\n\n"
      "Usage: dvla-node --coordinator HOST:PORT [flags]\n\n"
      "Flags:\n"
      "  --coordinator HOST:PORT the coordinator (dvla-ppo --listen HOST:PORT)\n"
      "  --name NAME             this node's name in the run (default HOST/PID); unique\n"
      "  --samplers N            samplers to host (default: the coordinator's\n"
      "                          cluster.node_samplers, or half this machine's cores)\n"
      "  --relay-host HOST       where nodes that take their weights from this one reach it\n"
      "                          (default 127.0.0.1 with a coordinator on loopback, else\n"
      "                          this host's name)\n"
      "  --config FILE           cluster.* settings from FILE (key = value lines)\n"
      "  --set KEY=VALUE         a cluster.* setting of this node: cluster.heartbeat_interval_s,\n"
      "                          cluster.connection_timeout_s (as on the coordinator),\n"
      "                          cluster.join_timeout_s (how long to keep dialling),\n"
      "                          cluster.tls.certificate, cluster.tls.key, cluster.tls.cafile\n"
      "  --help                  this text\n\n"
      "The run's settings come from the coordinator. SIGINT or SIGTERM stops the node; the\n"
      "run goes on without it (and counts what the learner acknowledged from it).\n\n"
      "Exit status: 0 when the coordinator released it (the run is over) or a signal stopped\n"
      "it; 1 when the coordinator was unreachable, refused it or was lost, or an actor failed;\n"
      "2 for bad flags.\n";
  return text;
}

struct NodeOptions {
  dvla::NodeSetup setup;
  bool help = false;
};

dvla::Expected<NodeOptions> parse(int argc, char** argv) {
  NodeOptions o;
  dvla::Config own;  // only its cluster.* settings are this node's
  std::string coordinator;
  std::vector<std::pair<std::string, std::string>> settings;
  dvla::apps::CommandLine line(argc, argv);
  while (!line.done()) {
    const std::string flag = line.take();
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    auto v = line.value_of(flag);
    if (!v) return v.error();
    if (flag == "--coordinator") {
      coordinator = *v;
    } else if (flag == "--name") {
      o.setup.name = *v;
    } else if (flag == "--relay-host") {
      o.setup.relay_host = *v;
    } else if (flag == "--samplers") {
      try {
        const int n = std::stoi(*v);
        if (n < 1) throw std::invalid_argument("");
        o.setup.samplers = static_cast<uint32_t>(n);
      } catch (const std::exception&) {
        return dvla::Error("--samplers needs a number of at least 1, got '" + *v + "'");
      }
    } else if (flag == "--config") {
      if (auto s = dvla::load_config_file(own, *v); !s) return s.error();
    } else if (flag == "--set") {
      const auto eq = v->find('=');
      if (eq == std::string::npos) return dvla::Error("--set needs key=value, got '" + *v + "'");
      settings.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else {
      return dvla::Error("unknown flag '" + flag + "'");
    }
  }
  for (const auto& [key, value] : settings) {
    if (key.rfind("cluster.", 0) != 0)
      return dvla::Error("--set " + key +
                         ": a node takes only cluster.* settings; the run's come from the "
                         "coordinator");
    if (auto s = dvla::set_config_value(own, key, value); !s) return s.error();
  }
  if (auto s = dvla::validate(own); !s) return s.error();
  if (coordinator.empty()) return dvla::Error("--coordinator HOST:PORT is needed");
  auto address = dvla::parse_cluster_address(coordinator);
  if (!address) return address.error().within("--coordinator");
  if (address->port == 0) return dvla::Error("--coordinator: the port must not be 0");
  o.setup.coordinator = *address;
  o.setup.cluster = own.cluster;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = parse(argc, argv);
  if (!options) {
    fmt::print(stderr, "dvla-node: {}\n(dvla-node --help lists the flags)\n",
               options.error().message());
    return 2;
  }
  if (options->help) {
    fmt::print("{}", help());
    return 0;
  }
  int status = 0;
  {
    dvla::apps::RunSignals signals("dvla-node");
    try {
      auto outcome = dvla::run_node(options->setup, &signals.requests());
      if (!outcome) {
        fmt::print(stderr, "dvla-node: {}\n", outcome.error().message());
        status = 1;
      }
    } catch (const std::exception& e) {
      fmt::print(stderr, "dvla-node: {}\n", e.what());
      status = 1;
    }
  }
  // Nothing is left to clean up: exit at once, even if run_node had to leave an actor system
  // behind (its threads would keep a normal exit waiting).
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(status);
}
