#pragma once
// Config: every setting of a run, as plain data. Each setting has a key ("ppo.learning_rate"); a
// config file holds `key = value` lines, `--set key=value` sets one, and every command-line flag
// of the apps is shorthand for one key. Unknown keys and bad values are errors that name them.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dvla/core/enum_text.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/core/settings.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/config/grpo_config.hpp>
#include <dvla/runtime/config/ppo_config.hpp>

namespace dvla {

// async: the Swimlane pipeline; sync: lock-step rounds (collect, train, distribute).
enum class RunMode { async, sync };
// The built-in policies (automatic: vla for envs with images or an instruction, mlp otherwise;
// null: zero actions, no compute, for measuring the runtime).
enum class PolicyKind { automatic, mlp, vla, torchscript, null };
enum class VlaPreset { tiny, small, base, large };
enum class Device { cpu, cuda };  // where policies compute
// The actions an evaluation takes: mean (the policy's most likely action: deterministic, one fixed
// figure per version) or sampled (drawn as in training, from the evaluation's seed).
enum class EvalActions { mean, sampled };
// automatic: lane threads pinned to cores of their own (runtime/platform/placement.hpp); none: the
// OS places them.
enum class PlacementMode { none, automatic };

template <>
struct EnumNames<RunMode> {
  static constexpr std::array<std::pair<RunMode, std::string_view>, 2> names{
      {{RunMode::async, "async"}, {RunMode::sync, "sync"}}};
};
template <>
struct EnumNames<EvalActions> {
  static constexpr std::array<std::pair<EvalActions, std::string_view>, 2> names{
      {{EvalActions::mean, "mean"}, {EvalActions::sampled, "sampled"}}};
};
template <>
struct EnumNames<PolicyKind> {
  static constexpr std::array<std::pair<PolicyKind, std::string_view>, 5> names{
      {{PolicyKind::automatic, "auto"},
       {PolicyKind::mlp, "mlp"},
       {PolicyKind::vla, "vla"},
       {PolicyKind::torchscript, "torchscript"},
       {PolicyKind::null, "null"}}};
};
template <>
struct EnumNames<PlacementMode> {
  static constexpr std::array<std::pair<PlacementMode, std::string_view>, 2> names{
      {{PlacementMode::none, "none"}, {PlacementMode::automatic, "auto"}}};
};
template <>
struct EnumNames<VlaPreset> {
  static constexpr std::array<std::pair<VlaPreset, std::string_view>, 4> names{
      {{VlaPreset::tiny, "tiny"},
       {VlaPreset::small, "small"},
       {VlaPreset::base, "base"},
       {VlaPreset::large, "large"}}};
};
template <>
struct EnumNames<Device> {
  static constexpr std::array<std::pair<Device, std::string_view>, 2> names{
      {{Device::cpu, "cpu"}, {Device::cuda, "cuda"}}};
};

struct RunConfig {
  uint64_t seed = 1;
  uint64_t max_env_steps = 500'000;
  double max_seconds = 0;  // wall-clock budget of one train() call; 0: none
  RunMode mode = RunMode::async;
  std::string algo = "ppo";  // a learner algorithm's name: ppo, grpo or one a program registered
  std::string logdir;        // where progress.jsonl and summary.json go; empty: nowhere
  std::string trace;         // Chrome trace-event file of the lanes' spans; empty: none
  int eval_episodes = 20;
  int eval_every = 0;            // versions between evaluations during the run; 0: only at the end
  int eval_backlog = 0;  // due versions that wait (with their weights) while an evaluation runs
  int eval_nice = 0;            // the evaluator thread's nice value: 0 like the lanes, up to 19
  bool eval_deferred = false;   // versions due during the run are evaluated once training ends
  EvalActions eval_actions = EvalActions::mean;
  int eval_video_every = 1;     // every N-th evaluation during a run records a GIF; 0: none
  int eval_video_episodes = 3;  // the first episodes of such an evaluation in its GIF
  double stop_eval_success = 0;  // end the run once an evaluation reaches this; 0: never
  double stop_eval_return = 0;   // the same for an evaluation's mean return
  int checkpoint_every = 50;     // versions between checkpoints (with a logdir); 0: only at the end
  int checkpoint_keep = 3;       // the last N are kept, and the best by evaluation success
  double progress_interval_s = 1.0;
  double control_ping_interval_s = 1.0;  // between control round trips; 0: none
  double message_timeout_s = 60.0;       // an actor that does not answer within this is reported
};

struct GraphConfig {
  int samplers = 2;
  int envs_per_sampler = 8;
  int segment_length = 32;     // steps per trajectory segment
  int segments_in_flight = 2;  // per sampler: segments collected or unacknowledged (credits)
  int env_buffers = 2;         // per sampler: env buffers that alternate (double buffering)
  int inference_replicas = 1;
  int torch_threads = 1;            // LibTorch intra-op threads where no lane sets its own
  int inference_torch_threads = 0;  // per inference replica; 0: torch_threads
  int training_torch_threads = 0;   // of the trainer; 0: torch_threads
  int scheduler_threads = 2;        // CAF scheduler threads for the light actors
  PlacementMode placement = PlacementMode::none;
  // Nice steps the samplers' threads (and their envs') run below the other lanes': where lanes
  // compete for cores, training and inference go first and sampling fills the time they leave.
  int sampling_nice = 10;
};

struct ModelConfig {
  PolicyKind policy = PolicyKind::automatic;
  std::vector<int64_t> hidden = {64, 64};  // mlp
  bool normalize_observations = true;      // mlp: running mean/std of the observations
  double initial_log_std = 0.0;            // mlp, continuous actions: of the first policy
  VlaPreset preset = VlaPreset::small;     // vla
  std::string torchscript;                 // torchscript: path of the module file
  std::string init;  // checkpoint directory (or weights file) the policy starts from; empty: seed
  Device device = Device::cpu;
};

// The process's memory pools (gpu/memory_pools.hpp): host arenas reserved at these sizes
// (address space; pages cost memory only once used).
struct MemoryConfig {
  int64_t sim_mib = 2048;    // samplers: segment buffers
  int64_t model_mib = 2048;  // trainer and replicas: flat weight buffers
};

// A run across processes and machines (docs/multi-node.md): a coordinator (supervisor, learner,
// evaluator, the top of the weight distribution) and nodes (samplers, inference replicas, a
// distributor each) that join it over CAF's middleman.
struct ClusterConfig {
  // HOST:PORT the coordinator listens on: the control plane on PORT, the data plane on PORT+1
  // (PORT 0: any free ports, logged). Empty: the whole graph in this process.
  std::string listen;
  int nodes = 1;               // nodes the samplers wait for before they start
  double join_timeout_s = 60;  // then they start with the nodes there are (at least one)
  int local_samplers = 0;      // samplers the coordinator hosts itself beside the nodes'
  int node_samplers = 0;       // samplers per node; 0: auto, half the node's cores (at least 1)
  int node_replicas = 1;       // inference replicas per node
  double heartbeat_interval_s = 0.5;  // every process of the cluster sends heartbeats this often
  double connection_timeout_s = 5;    // a peer silent this long is lost (killed, cut off or hung)
  // Nodes: how long one that lost its coordinator keeps dialling it, to join it again once it is
  // back (resumed from its logdir); 0: it stops at once.
  double rejoin_timeout_s = 120;
  // Mutual TLS (all three, or none): this process's certificate and key, and the CA whose
  // certificates it accepts. scripts/cluster-certs.sh makes them.
  std::string tls_certificate, tls_key, tls_cafile;
  // Secure by default: beyond loopback a coordinator or node needs the three tls keys; this is
  // the explicit switch that lets it run in plain TCP there (warned at start, in the summary).
  bool insecure = false;
  // Nodes check that the coordinator's certificate is for the address they dial (its SANs:
  // scripts/cluster-certs.sh, DVLA_CERT_HOSTS); false: not (clusters addressed otherwise, e.g.
  // through a tunnel). The certificate's CA and coordinator role are checked either way.
  bool tls_check_address = true;
  // The names (their certificates' names, with TLS) that may join as nodes; empty: any.
  std::vector<std::string> allowed_nodes;
  // A peer refused this many messages (malformed, not its to send, out of bounds) is
  // disconnected (a node is cut off from the run first).
  int max_refusals = 100;
  // With TLS, each process holds at most this many connections from one peer address (a node
  // opens one per plane to the coordinator, and one to its relay parent); more are refused.
  int max_connections_per_address = 64;
  // With TLS, a connection whose handshake has not finished this long after it was accepted is
  // closed (CAF 0.17 has no handshake timeout of its own).
  double tls_handshake_timeout_s = 10;

  bool tls() const { return !tls_certificate.empty(); }
};

// How weight versions travel from the learner to the nodes' distributors.
struct DistributionConfig {
  double chunk_mib = 4;      // a version crosses to a node in chunks of this size
  int chunks_in_flight = 2;  // per node: chunks sent and not yet acknowledged
  int fanout = 4;            // the learner, and each relay node, send to at most this many nodes
  double uplink_mib_s = 0;   // per distributor: the most MiB/s it sends to the nodes below; 0: any
  // What a version's parameters are carried in: bfloat16 halves the bytes; the learner keeps
  // float32 and every replica acts with the same rounded version.
  msg::WeightPrecision wire_dtype = msg::WeightPrecision::float32;
};

// What the supervisor does when a lane actor fails (actors/control/graph_restarts.hpp): a sampler
// is restarted with fresh envs, an inference replica or the evaluator with the current weights,
// each at most `max_restarts` times within any `window_s` seconds; the next failure ends the run.
// The trainer's failure ends it (its last checkpoint stays whole) unless `restart_trainer`: then
// the trainer is restarted from the run's last checkpoint (one process, async mode).
struct FaultConfig {
  int max_restarts = 3;  // per actor, within window_s; 0: any failure ends the run
  double window_s = 300;
  bool restart_trainer = false;
};

struct Config {
  RunConfig run;
  FaultConfig fault;
  ClusterConfig cluster;
  DistributionConfig distribution;
  GraphConfig graph;
  MemoryConfig memory;
  envs::EnvConfig env;
  ModelConfig model;
  PpoConfig ppo;
  GrpoConfig grpo;
};

struct ConfigKeyInfo {
  std::string key;
  std::string description;
  std::string default_value;
};

// Sets `key` from text; the error names the key and what was wrong with the value.
Status set_config_value(Config& config, const std::string& key, const std::string& value);
// The current value of `key` as text (the same text set_config_value accepts).
Expected<std::string> get_config_value(const Config& config, const std::string& key);
// Applies a config file: TOML when its name ends in .toml (runtime/config/toml_config.hpp),
// otherwise `key = value` lines ('#' starts a comment); errors name file and line.
Status load_config_file(Config& config, const std::string& path);
// The same for text (`origin` names it in errors), e.g. a coordinator's config sent to a node.
Status load_config_text(Config& config, const std::string& text, const std::string& origin);
// Checks values against each other and their ranges once everything is set.
Status validate(const Config& config);
// Secure by default: a coordinator listening, or a node dialling or relaying, on `host` beyond
// this machine's loopback needs all three cluster.tls.* keys unless cluster.insecure = true. The
// error names `what` (the address and what it is for), the keys and the switch.
Status check_transport_security(const ClusterConfig& cluster, const std::string& host,
                                const std::string& what);
// The env buffers a sampler of `envs_per_sampler` envs uses: graph.env_buffers, or fewer where
// the envs do not split into that many equal buffers of whole groups of `group_size` envs
// (episodic collection; 0: none); 1 in lock-step (mode sync).
int env_buffers(const Config& config, int envs_per_sampler, int group_size);
// The same for config.graph.envs_per_sampler and continuous collection (PPO).
int env_buffers(const Config& config);

// The LibTorch intra-op threads of each inference replica and of the trainer.
int inference_torch_threads(const GraphConfig& graph);
int training_torch_threads(const GraphConfig& graph);
// The table of every key's setting, pointing into `config` (it must outlive the table).
std::vector<Setting> config_settings(Config& config);
// Every key with its description and default, in a stable order (for --help and docs).
std::vector<ConfigKeyInfo> config_keys();
// `key = value` lines of the whole config (round-trips through load_config_file).
std::string dump_config(const Config& config);

}  // namespace dvla
