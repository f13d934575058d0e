// dvla-node: a node of a multi-node run. Joins the coordinator (dvla-ppo --listen), hosts the
// samplers, inference replicas and distributor it is assigned, and collects until the run is
// over. docs/multi-node.md shows a cluster on one machine and on several.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include <dvla/actors/cluster/node.hpp>
#include "common/command_line.hpp"
#include "common/config_flags.hpp"
#include "common/run_signals.hpp"

namespace {

const char* description =
    "dvla-node: join a multi-node dvla run as a node: host samplers, inference replicas and a "
    "distributor; observations and actions stay here, segments go to the coordinator's "
    "learner, weights come from it (directly, or through another node: a relay tree).";

const char* footer =
    "The run's settings come from the coordinator. SIGINT or SIGTERM stops the node; the run "
    "goes on without it (and counts what the learner acknowledged from it).\n\n"
    "Exit status: 0 when the coordinator released it (the run is over) or a signal stopped it; "
    "1 when the coordinator was unreachable, refused it or was lost, or an actor failed; 2 for "
    "bad flags.";

struct NodeFlags {
  std::string coordinator;
  dvla::NodeSetup setup;
};

void add_flags(CLI::App& app, dvla::apps::ConfigFlags& flags, NodeFlags& f) {
  using dvla::apps::flag_help;
  app.add_option("--coordinator", f.coordinator, "the coordinator (dvla-ppo --listen HOST:PORT)")
      ->type_name("HOST:PORT")
      ->required();
  app.add_option("--name", f.setup.name,
                 "this node's name in the run (default HOST/PID); unique")
      ->type_name("NAME");
  app.add_option("--samplers", f.setup.samplers,
                 flag_help("samplers to host (default: the coordinator's cluster.node_samplers, "
                           "or half this machine's cores)"))
      ->type_name("N")
      ->check(CLI::Range(1u, 1u << 20));
  app.add_option("--relay-host", f.setup.relay_host,
                 flag_help("where nodes that take their weights from this one reach it "
                           "(default 127.0.0.1 with a coordinator on loopback, else this "
                           "host's name)"))
      ->type_name("HOST");
  flags.add_config_file_flag("cluster.* settings from FILE");
  flags.add_set_flag(
      "a cluster.* setting of this node: cluster.heartbeat_interval_s, "
      "cluster.connection_timeout_s (as on the coordinator), cluster.join_timeout_s (how long "
      "to keep dialling), cluster.tls.certificate, cluster.tls.key, cluster.tls.cafile, "
      "cluster.insecure (plain TCP beyond loopback, on purpose)");
}

// What CLI11 cannot check: only cluster.* settings, and the coordinator's address.
dvla::Status complete(NodeFlags& f, const dvla::apps::ConfigFlags& flags) {
  for (const auto& setting : flags.settings())
    if (setting.key.rfind("cluster.", 0) != 0)
      return dvla::Error("--set " + setting.key +
                         ": a node takes only cluster.* settings; the run's come from the "
                         "coordinator");
  dvla::Config own;  // only its cluster.* settings are this node's
  if (auto s = flags.apply_to(own); !s) return s;
  auto address = dvla::parse_cluster_address(f.coordinator);
  if (!address) return address.error().within("--coordinator");
  if (address->port == 0) return dvla::Error("--coordinator: the port must not be 0");
  f.setup.coordinator = *address;
  f.setup.cluster = own.cluster;
  return dvla::check_node_transport(f.setup);
}

// The node's setup, or the status to exit with (after --help, or a refused command line).
std::variant<dvla::NodeSetup, int> parse(int argc, char** argv) {
  NodeFlags f;
  using dvla::apps::kHelpWidth;
  CLI::App app(dvla::apps::app_description(description), "dvla-node");
  dvla::apps::use_dvla_help_format(app);
  dvla::apps::ConfigFlags flags(app);
  add_flags(app, flags, f);
  app.footer(dvla::apps::wrap_words(footer, kHelpWidth));
  if (auto status = dvla::apps::parse_command_line(app, argc, argv)) return *status;
  if (auto s = complete(f, flags); !s)
    return dvla::apps::refuse_command_line("dvla-node", s.error().message());
  return f.setup;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse(argc, argv);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const auto& setup = std::get<dvla::NodeSetup>(parsed);
  int status = 0;
  {
    dvla::apps::RunSignals signals("dvla-node");
    try {
      auto outcome = dvla::run_node(setup, &signals.requests());
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
