#include <dvla/runtime/config/config.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <dvla/core/settings.hpp>
#include <dvla/core/text.hpp>
#include <dvla/envs/env_registry.hpp>
#include <dvla/runtime/config/cluster_address.hpp>
#include <dvla/runtime/config/learning_rate_schedule.hpp>
#include <dvla/runtime/config/toml_config.hpp>

namespace dvla {

// The one table of settings: the run's own rows, with every registered env's rows after `env`.
// Keep keys stable: users script them.
std::vector<Setting> config_settings(Config& c) {
  std::vector<Setting> table = {
      {"seed", "seed of every random stream of the run", &c.run.seed},
      {"max_env_steps", "env steps to collect before training stops", &c.run.max_env_steps},
      {"max_seconds",
       "wall-clock seconds after which training stops as at max_env_steps (final checkpoint, "
       "evaluation, summary); counted per process, a resumed run gets its own; 0: no limit",
       &c.run.max_seconds},
      {"mode", "async (the Swimlane pipeline) | sync (lock-step: collect, train, distribute)",
       enum_field(&c.run.mode)},
      {"algo", "learning algorithm: ppo | grpo, or one a program registered", &c.run.algo},
      {"logdir",
       "directory of the run's files: progress.jsonl, summary.json, config.txt, TensorBoard "
       "event files, checkpoints/, videos/, final.weights (empty: none)",
       &c.run.logdir},
      {"trace", "Chrome trace-event JSON of every lane's spans, for Perfetto (empty: none)",
       &c.run.trace},
      {"eval.episodes", "episodes of each evaluation (on the suite's evaluation states)",
       &c.run.eval_episodes},
      {"eval.every", "policy versions between evaluations during the run (0: only at the end)",
       &c.run.eval_every},
      {"eval.backlog",
       "versions due for evaluation while one runs that wait their turn, with the weights and "
       "env steps of when they were due, at most this many; the run's end waits for them "
       "(dvla-bench efficiency looks at every version); 0: a version due while one runs is not "
       "evaluated",
       &c.run.eval_backlog},
      {"eval.nice",
       "the evaluator thread's nice value (0 to 19): above 0 it takes the CPU the lanes leave "
       "instead of competing with them, so evaluations finish later and an observed run runs as "
       "an unobserved one would (dvla-bench efficiency: 19); 0: like training and inference "
       "(the samplers run graph.sampling_nice below them)",
       &c.run.eval_nice},
      {"eval.deferred",
       "true: the versions due during the run (eval.every) wait in eval.backlog, with the weights, "
       "env steps and time of when they were due, and are evaluated in order once training has "
       "ended; the lanes run alone as in an unobserved run (an evaluator at nice 19 still slowed "
       "async CartPole by a third), and a stop.eval_* target is found after training, not when "
       "it is reached (dvla-bench efficiency); false: evaluations run beside training",
       &c.run.eval_deferred},
      {"eval.actions",
       "mean (the policy's most likely action: deterministic, one fixed figure per version) | "
       "sampled (drawn from the policy as in training, from the run's seed: what the training "
       "episodes' success measures)",
       enum_field(&c.run.eval_actions)},
      {"eval.video_every",
       "every N-th evaluation during a run records its first episodes' camera images as an "
       "animated GIF in <logdir>/videos and TensorBoard (envs with images, runs with a logdir), "
       "and so does the final evaluation (videos/final_v<version>.gif); 0: none",
       &c.run.eval_video_every},
      {"eval.video_episodes", "episodes in each evaluation video, a row each (1 to 16)",
       &c.run.eval_video_episodes},
      {"stop.eval_success",
       "end the run (as at max_env_steps) once an evaluation during it reaches this success rate, "
       "e.g. 0.8; needs eval.every; 0: never",
       &c.run.stop_eval_success},
      {"stop.eval_return",
       "end the run (as at max_env_steps) once an evaluation during it reaches this mean return; "
       "needs eval.every; 0: never",
       &c.run.stop_eval_return},
      {"checkpoint.every",
       "policy versions between checkpoints under logdir/checkpoints (0: only at the end)",
       &c.run.checkpoint_every},
      {"checkpoint.keep", "checkpoints kept: the last N, plus the best by evaluation success",
       &c.run.checkpoint_keep},
      {"progress_interval_s", "seconds between progress lines", &c.run.progress_interval_s},
      {"control.ping_interval_s",
       "seconds between control round trips (supervisor -> every actor's control endpoint -> "
       "ack), reported as control_rtt; 0: none",
       &c.run.control_ping_interval_s},
      {"message_timeout_s",
       "seconds an actor may take to answer a control request, and the longest a run may go "
       "without progress (env steps, versions) before it is reported as stuck",
       &c.run.message_timeout_s},
      {"fault.max_restarts",
       "restarts of one failed sampler (fresh envs), inference replica or evaluator (current "
       "weights) within fault.window_s; one failure more ends the run; 0: any failure ends it",
       &c.fault.max_restarts},
      {"fault.window_s", "seconds over which fault.max_restarts is counted", &c.fault.window_s},
      {"fault.restart_trainer",
       "restart a failed trainer from the run's last checkpoint (within fault.max_restarts; the "
       "updates since it are lost, versions go on); false: its failure ends the run",
       &c.fault.restart_trainer},
      {"env", "environment: cartpole | pendulum | inverted_pendulum | synthetic | tabletop",
       &c.env.name},
      {"env.clip_actions",
       "clip continuous actions to the env's [low, high] before it steps (the learner keeps the "
       "log-probability of the action as drawn); false: the env gets them unclipped",
       &c.env.clip_actions},
  };
  for (const auto& env : envs::EnvRegistry::builtin().entries())
    if (env.settings)
      for (auto& row : env.settings(c.env)) table.push_back(std::move(row));
  std::vector<Setting> rest = {
      {"samplers", "sampler actors", &c.graph.samplers},
      {"envs_per_sampler", "environments each sampler steps as one batch",
       &c.graph.envs_per_sampler},
      {"graph.segment_length", "steps per trajectory segment", &c.graph.segment_length},
      {"graph.segments_in_flight",
       "a sampler's credits: segments being collected or not yet acknowledged by the trainer; a "
       "buffer starts a segment only with a free credit",
       &c.graph.segments_in_flight},
      {"graph.env_buffers",
       "buffers a sampler's envs are split into: one steps while another waits for actions "
       "(2: double buffering; fewer where the envs or GRPO groups do not split; sync uses 1)",
       &c.graph.env_buffers},
      {"graph.inference_replicas", "inference actors, each with its own policy replica",
       &c.graph.inference_replicas},
      {"graph.torch_threads",
       "LibTorch intra-op threads of the evaluator and of lanes without their own setting",
       &c.graph.torch_threads},
      {"graph.inference_torch_threads",
       "LibTorch intra-op threads of each inference replica (0: graph.torch_threads)",
       &c.graph.inference_torch_threads},
      {"graph.training_torch_threads",
       "LibTorch intra-op threads of the trainer (0: graph.torch_threads)",
       &c.graph.training_torch_threads},
      {"graph.scheduler_threads", "CAF scheduler threads for the light actors",
       &c.graph.scheduler_threads},
      {"graph.placement",
       "auto: pin samplers, inference replicas and the trainer to cores of their own (hwloc; "
       "fewer cores: shared by lane, or in sync mode left to the OS; said in the log) and, on "
       "several NUMA nodes, bind each replica's weight buffers to its cores' node; none: the OS "
       "places threads and memory",
       enum_field(&c.graph.placement)},
      {"graph.sampling_nice",
       "nice steps (0 to 19) the samplers' threads and their envs' run below the other lanes: "
       "where the lanes compete for cores, training and inference go first and sampling takes "
       "the CPU they leave; 0: all alike",
       &c.graph.sampling_nice},
      {"cluster.listen",
       "HOST:PORT the coordinator of a multi-node run listens on (control plane; the data plane "
       "takes PORT+1, the weights plane PORT+2; PORT 0: free ports, logged); empty: one process",
       &c.cluster.listen},
      {"cluster.nodes", "nodes the coordinator waits for before the samplers start",
       &c.cluster.nodes},
      {"cluster.join_timeout_s",
       "seconds the coordinator waits for cluster.nodes; then it starts with the nodes it has",
       &c.cluster.join_timeout_s},
      {"cluster.local_samplers", "samplers the coordinator hosts itself beside the nodes'",
       &c.cluster.local_samplers},
      {"cluster.node_samplers",
       "samplers per node (each with envs_per_sampler envs); 0: auto, half the node's cores",
       &c.cluster.node_samplers},
      {"cluster.node_replicas", "inference replicas per node", &c.cluster.node_replicas},
      {"cluster.heartbeat_interval_s", "seconds between heartbeats of every cluster process",
       &c.cluster.heartbeat_interval_s},
      {"cluster.connection_timeout_s",
       "seconds of silence after which a peer (node or coordinator) is lost",
       &c.cluster.connection_timeout_s},
      {"cluster.rejoin_timeout_s",
       "nodes: seconds a node that lost its coordinator keeps dialling it, to join it again once "
       "it is back (dvla-ppo --resume LOGDIR --listen on the same address); 0: it stops at once",
       &c.cluster.rejoin_timeout_s},
      {"cluster.tls.certificate",
       "PEM certificate of this process (mutual TLS; with .key, .cafile)",
       &c.cluster.tls_certificate},
      {"cluster.tls.key", "PEM private key of cluster.tls.certificate", &c.cluster.tls_key},
      {"cluster.tls.cafile", "PEM CA certificate that peers' certificates must chain to",
       &c.cluster.tls_cafile},
      {"cluster.tls.check_address",
       "nodes: true: refuse a coordinator whose certificate is not for the address dialled (its "
       "subjectAltNames); false: trust the CA and the coordinator role alone",
       &c.cluster.tls_check_address},
      {"cluster.allowed_nodes",
       "names that may join as nodes (with TLS: their certificates' names), comma-separated; "
       "empty: any node of the cluster's CA",
       &c.cluster.allowed_nodes},
      {"cluster.insecure",
       "true: allow plain TCP beyond loopback (without cluster.tls.*, anyone who reaches the "
       "ports can join or talk to the run); false: refuse to start there without TLS",
       &c.cluster.insecure},
      {"cluster.max_refusals",
       "messages a peer may have refused (malformed, not its to send, out of bounds) before the "
       "coordinator disconnects it (a node is cut off from the run first)",
       &c.cluster.max_refusals},
      {"cluster.max_connections_per_address",
       "with TLS: connections a coordinator or node holds from one peer address (a node opens 3 "
       "to the coordinator); more are refused (nodes behind one NAT address share it)",
       &c.cluster.max_connections_per_address},
      {"cluster.tls.handshake_timeout_s",
       "a TLS connection whose handshake has not finished this long after it was accepted is "
       "closed",
       &c.cluster.tls_handshake_timeout_s},
      {"distribution.chunk_mib",
       "MiB per chunk in which a weight version crosses to a node (checked whole on arrival)",
       &c.distribution.chunk_mib},
      {"distribution.chunks_in_flight", "per node: weight chunks sent and not yet acknowledged",
       &c.distribution.chunks_in_flight},
      {"distribution.fanout",
       "the learner sends each version to at most this many nodes; each of them relays it to as "
       "many more (a tree), so the learner's bytes per version do not grow with the nodes",
       &c.distribution.fanout},
      {"distribution.uplink_mib_s",
       "per process: the most MiB per second of weight chunks it sends to the nodes below it "
       "(room for segments on a shared link); 0: no cap",
       &c.distribution.uplink_mib_s},
      {"distribution.wire_dtype",
       "float32 | bfloat16: the precision weight versions travel in (bfloat16: half the bytes; the "
       "learner keeps float32, every replica, local ones too, acts with the rounded version)",
       enum_field(&c.distribution.wire_dtype)},
      {"memory.sim_mib",
       "budget of the sim pool (samplers' segment buffers), MiB; beyond it an allocation fails "
       "naming the pool",
       &c.memory.sim_mib},
      {"memory.model_mib",
       "budget of the model pool (flat weight buffers of the trainer and every replica), MiB",
       &c.memory.model_mib},
      {"model.policy",
       "policy: auto | mlp | vla | torchscript | null (auto: vla for envs with images; null: zero "
       "actions, no compute, for measuring the runtime)",
       enum_field(&c.model.policy)},
      {"model.hidden", "hidden layer widths of the MLP actor-critic, comma-separated",
       &c.model.hidden},
      {"model.normalize_observations",
       "mlp: normalise observations by the running mean and std of those trained on (the "
       "statistics travel with the weights and checkpoints)",
       &c.model.normalize_observations},
      {"model.initial_log_std",
       "mlp, continuous actions: log standard deviation of the first policy's Gaussian",
       &c.model.initial_log_std},
      {"model.preset", "VLA size: tiny | small | base | large", enum_field(&c.model.preset)},
      {"model.torchscript", "TorchScript policy file (model.policy=torchscript)",
       &c.model.torchscript},
      {"model.init",
       "checkpoint directory (or weights file) the policy starts from, e.g. an SFT checkpoint "
       "(empty: fresh parameters from the seed)",
       &c.model.init},
      {"model.device",
       "where policies compute: cpu | cuda (cuda needs a LibTorch built with CUDA and a GPU; "
       "docs/gpu.md)",
       enum_field(&c.model.device)},
      {"ppo.learning_rate", "Adam learning rate", &c.ppo.learning_rate},
      {"ppo.learning_rate_schedule",
       "learning rates from given points on, POINT:RATE,... (e.g. 200:3e-5: ppo.learning_rate "
       "until version 200, then 3e-5); empty: ppo.learning_rate throughout",
       &c.ppo.learning_rate_schedule},
      {"ppo.learning_rate_schedule_unit",
       "what the schedule's points count: versions (policy updates) | samples (samples trained: "
       "alike per env step in sync and async mode)",
       enum_field(&c.ppo.learning_rate_schedule_unit)},
      {"ppo.learning_rate_anneal",
       "none | linear: the rate (after the schedule) falls linearly to 0 at max_env_steps, by "
       "samples trained",
       enum_field(&c.ppo.learning_rate_anneal)},
      {"ppo.gamma", "discount factor", &c.ppo.gamma},
      {"ppo.gae_lambda", "GAE lambda", &c.ppo.gae_lambda},
      {"ppo.clip", "clip range of the importance ratio", &c.ppo.clip},
      {"ppo.value_coef", "weight of the value loss", &c.ppo.value_coef},
      {"ppo.value_clip",
       "value-loss clipping: the larger of the plain loss and the loss of the new value kept "
       "within this of the samples' values; 0: plain loss",
       &c.ppo.value_clip},
      {"ppo.reward_scale",
       "none | return_std: rewards divided by the running std of the discounted return before "
       "advantages (ppo; statistics kept in checkpoints)",
       enum_field(&c.ppo.reward_scale)},
      {"ppo.entropy_coef", "weight of the entropy bonus", &c.ppo.entropy_coef},
      {"ppo.max_grad_norm", "gradient norm clip", &c.ppo.max_grad_norm},
      {"ppo.epochs", "passes over each batch", &c.ppo.epochs},
      {"ppo.minibatch_size", "samples per gradient step", &c.ppo.minibatch_size},
      {"ppo.batch_size", "env steps gathered per update", &c.ppo.batch_size},
      {"ppo.max_policy_lag", "staleness bound: samples more versions behind are dropped",
       &c.ppo.max_policy_lag},
      {"ppo.importance_weight_cap",
       "stale samples' importance weights above this are cut to it (0: not cut)",
       &c.ppo.importance_weight_cap},
      {"ppo.proximal_policy",
       "where lagging samples' proximal log-probabilities come from: update_start (a forward "
       "pass before the update) | first_visit (their minibatch's pass in the first epoch)",
       enum_field(&c.ppo.proximal_policy)},
      {"ppo.normalize_advantages", "normalise advantages per minibatch (ppo)",
       &c.ppo.normalize_advantages},
      {"ppo.advantage_values",
       "critic values for advantages and value targets: behaviour (those the samples carry) | "
       "learner (the learner's critic at the update's start, the segments' ends included)",
       enum_field(&c.ppo.advantage_values)},
      {"ppo.kl_coef",
       "weight of the KL to the starting policy (model.init or the seed's), e.g. for grpo",
       &c.ppo.kl_coef},
      {"ppo.target_kl",
       "an update ends before the first minibatch whose approximate KL from the policy the "
       "samples are clipped around exceeds 1.5x this (0: every epoch runs)",
       &c.ppo.target_kl},
      {"ppo.adaptive_kl",
       "the learning rate adapts to each gradient step's approximate KL: / 1.5 above 2x this, "
       "x 1.5 below half of it, within [0.01, 10] x the scheduled rate (0: off)",
       &c.ppo.adaptive_kl},
      {"grpo.group_size",
       "grpo: episodes per group, all from one initial state (divides envs_per_sampler)",
       &c.grpo.group_size},
      {"grpo.reward", "grpo: episode score, success (1 or 0: sparse) | return (summed env reward)",
       enum_field(&c.grpo.reward)},
  };
  for (auto& row : rest) table.push_back(std::move(row));
  return table;
}

namespace {

Error unknown_key(const std::string& key) {
  return Error("unknown config key '" + key + "' (dvla-ppo --help lists every key)");
}

Status validate(const ClusterConfig& c, RunMode mode) {
  auto fail = [](const std::string& what) { return Status(Error("invalid config: " + what)); };
  if (c.nodes < 0) return fail("cluster.nodes must not be negative");
  if (!(c.join_timeout_s > 0)) return fail("cluster.join_timeout_s must be positive");
  if (c.local_samplers < 0) return fail("cluster.local_samplers must not be negative");
  if (c.node_samplers < 0) return fail("cluster.node_samplers must be 0 (auto) or more");
  if (c.node_replicas < 1) return fail("cluster.node_replicas must be at least 1");
  if (!(c.heartbeat_interval_s > 0)) return fail("cluster.heartbeat_interval_s must be positive");
  if (!(c.rejoin_timeout_s >= 0))
    return fail("cluster.rejoin_timeout_s must be 0 (no rejoining) or more");
  for (const auto& name : c.allowed_nodes)
    if (name.empty() || name.size() > 128)
      return fail("cluster.allowed_nodes: '" + name + "' is no node name (1 to 128 characters)");
  if (!(c.connection_timeout_s > c.heartbeat_interval_s))
    return fail("cluster.connection_timeout_s must be longer than cluster.heartbeat_interval_s");
  const int tls_keys = !c.tls_certificate.empty() + !c.tls_key.empty() + !c.tls_cafile.empty();
  if (tls_keys != 0 && tls_keys != 3)
    return fail(
        "cluster.tls.certificate, cluster.tls.key and cluster.tls.cafile go together: set all "
        "three (mutual TLS) or none");
  if (c.max_refusals < 1) return fail("cluster.max_refusals must be at least 1");
  if (!(c.tls_handshake_timeout_s > 0))
    return fail("cluster.tls.handshake_timeout_s must be positive");
  if (c.max_connections_per_address < 3)
    return fail(
        "cluster.max_connections_per_address must be at least 3 (a node opens one connection per "
        "plane)");
  if (c.listen.empty()) return Status::ok();
  auto address = parse_cluster_address(c.listen);
  if (!address) return fail("cluster.listen: " + address.error().message());
  if (auto secure = check_transport_security(c, address->host, "cluster.listen " + c.listen);
      !secure)
    return secure;
  if (mode == RunMode::sync)
    return fail("mode sync (lock-step rounds) runs in one process; a cluster runs async");
  return Status::ok();
}

}  // namespace

Status check_transport_security(const ClusterConfig& cluster, const std::string& host,
                                const std::string& what) {
  if (cluster.tls() || cluster.insecure || is_loopback_host(host)) return Status::ok();
  return Error(what +
               " is beyond this machine's loopback, and without TLS anyone who reaches it "
               "could join or command the run: set cluster.tls.certificate, cluster.tls.key and "
               "cluster.tls.cafile (scripts/cluster-certs.sh makes them), or run in plain TCP "
               "on purpose with cluster.insecure=true");
}

Status set_config_value(Config& config, const std::string& key, const std::string& value) {
  const auto table = config_settings(config);
  const Setting* f = find_setting(table, key);
  if (!f) return unknown_key(key);
  return set_setting(*f, value);
}

Expected<std::string> get_config_value(const Config& config, const std::string& key) {
  Config copy = config;
  const auto table = config_settings(copy);
  const Setting* f = find_setting(table, key);
  if (!f) return unknown_key(key);
  return format_setting(*f);
}

Status load_config_text(Config& config, const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto setting = trim(line.substr(0, line.find('#')));
    if (setting.empty()) continue;
    const auto eq = setting.find('=');
    const std::string where = origin + ":" + std::to_string(number);
    if (eq == std::string::npos)
      return Error(where + ": expected 'key = value', got '" + setting + "'");
    if (auto s = set_config_value(config, trim(setting.substr(0, eq)), setting.substr(eq + 1)); !s)
      return s.error().within(where);
  }
  return Status::ok();
}

Status load_config_file(Config& config, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error("cannot read config file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (std::filesystem::path(path).extension() == ".toml")
    return load_toml_config_text(config, text.str(), path);
  return load_config_text(config, text.str(), path);
}

Status validate(const Config& c) {
  auto fail = [](const std::string& what) { return Status(Error("invalid config: " + what)); };
  // `algo` names an algorithm of the graph's LearnerRegistry: checked with the graph.
  if (c.run.algo.empty()) return fail("algo is empty");
  if (c.run.algo == "grpo") {
    if (c.grpo.group_size < 2) return fail("grpo.group_size must be at least 2");
    if (c.graph.envs_per_sampler % c.grpo.group_size != 0)
      return fail("grpo.group_size " + std::to_string(c.grpo.group_size) +
                  " does not divide envs_per_sampler " + std::to_string(c.graph.envs_per_sampler));
  }
  const auto env = envs::EnvRegistry::builtin().find(c.env.name);
  if (!env) return fail(env.error().message());
  if (c.run.max_env_steps == 0) return fail("max_env_steps must be at least 1");
  if (!(c.run.max_seconds >= 0)) return fail("max_seconds must be 0 (no limit) or positive");
  if (c.run.eval_episodes < 0) return fail("eval.episodes must not be negative");
  if (c.run.eval_every < 0) return fail("eval.every must not be negative");
  if (c.run.eval_video_every < 0)
    return fail("eval.video_every must not be negative (0: no videos), not " +
                std::to_string(c.run.eval_video_every));
  if (c.run.eval_video_episodes < 1 || c.run.eval_video_episodes > 16)
    return fail("eval.video_episodes must be from 1 to 16, not " +
                std::to_string(c.run.eval_video_episodes));
  if (c.run.eval_nice < 0 || c.run.eval_nice > 19)
    return fail("eval.nice must be from 0 (like the lanes) to 19 (the lowest priority), not " +
                std::to_string(c.run.eval_nice));
  if (c.run.eval_backlog < 0 || c.run.eval_backlog > 100'000)
    return fail("eval.backlog must be from 0 (none) to 100000 versions waiting, not " +
                std::to_string(c.run.eval_backlog));
  if (c.run.eval_deferred && c.run.eval_backlog == 0)
    return fail("eval.deferred needs eval.backlog to keep the versions due until training ends");
  if (c.run.eval_every > 0 && c.run.eval_episodes == 0)
    return fail("eval.every needs eval.episodes of at least 1");
  if (!(c.run.stop_eval_success >= 0 && c.run.stop_eval_success <= 1))
    return fail("stop.eval_success must be a success rate from 0 (never) to 1");
  if (!(c.run.stop_eval_return >= 0))
    return fail("stop.eval_return must be 0 (never) or a positive mean return");
  if ((c.run.stop_eval_success > 0 || c.run.stop_eval_return > 0) && c.run.eval_every == 0)
    return fail(
        "stop.eval_success and stop.eval_return need eval.every (evaluations during the "
        "run)");
  if (c.run.checkpoint_every < 0) return fail("checkpoint.every must not be negative");
  if (c.run.checkpoint_keep < 1) return fail("checkpoint.keep must be at least 1");
  if (c.run.progress_interval_s <= 0) return fail("progress_interval_s must be positive");
  if (c.run.message_timeout_s <= 0) return fail("message_timeout_s must be positive");
  if (c.fault.max_restarts < 0 || c.fault.max_restarts > 1000)
    return fail("fault.max_restarts must be 0..1000, not " + std::to_string(c.fault.max_restarts));
  if (!(c.fault.window_s > 0)) return fail("fault.window_s must be positive");
  if (c.fault.restart_trainer && c.run.mode == RunMode::sync)
    return fail(
        "fault.restart_trainer needs mode async: a sync run's lock-step round cannot take a new "
        "trainer halfway");
  if (c.fault.restart_trainer && !c.cluster.listen.empty())
    return fail(
        "fault.restart_trainer works in one process: a cluster's nodes ship to the learner "
        "they joined (unset cluster.listen or fault.restart_trainer)");
  if (c.run.control_ping_interval_s < 0)
    return fail("control.ping_interval_s must be 0 (no pings) or positive");
  // Upper bounds keep a typo from exhausting the machine (threads, memory) or the budget.
  const auto within = [&](int value, int low, int high, const char* key) {
    return value >= low && value <= high
               ? Status::ok()
               : fail(std::string(key) + " must be " + std::to_string(low) + ".." +
                      std::to_string(high) + ", not " + std::to_string(value));
  };
  for (const auto& s : {within(c.graph.samplers, 1, 1024, "samplers"),
                        within(c.graph.envs_per_sampler, 1, 4096, "envs_per_sampler"),
                        within(c.graph.segment_length, 1, 100000, "graph.segment_length"),
                        within(c.graph.segments_in_flight, 1, 1024, "graph.segments_in_flight"),
                        within(c.graph.env_buffers, 1, 64, "graph.env_buffers"),
                        within(c.graph.inference_replicas, 1, 256, "graph.inference_replicas"),
                        within(c.graph.torch_threads, 1, 1024, "graph.torch_threads"),
                        within(c.graph.sampling_nice, 0, 19, "graph.sampling_nice")})
    if (!s) return s;
  if (uint64_t{static_cast<uint32_t>(c.graph.samplers)} *
          static_cast<uint32_t>(c.graph.envs_per_sampler) >
      c.run.max_env_steps)
    return fail("samplers x envs_per_sampler (" +
                std::to_string(c.graph.samplers * c.graph.envs_per_sampler) +
                " env steps per round) exceed max_env_steps " +
                std::to_string(c.run.max_env_steps));
  if (c.graph.inference_torch_threads < 0)
    return fail("graph.inference_torch_threads must be 0 (graph.torch_threads) or more");
  if (c.graph.training_torch_threads < 0)
    return fail("graph.training_torch_threads must be 0 (graph.torch_threads) or more");
  if (c.graph.scheduler_threads < 1) return fail("graph.scheduler_threads must be at least 1");
  if (auto cluster = validate(c.cluster, c.run.mode); !cluster) return cluster;
  // A chunk is one Cap'n Proto Data field: at most 512 MiB; at least 1 KiB.
  if (!(c.distribution.chunk_mib >= 1.0 / 1024 && c.distribution.chunk_mib <= 256))
    return fail("distribution.chunk_mib must be between 1/1024 (1 KiB) and 256");
  if (c.distribution.chunks_in_flight < 1)
    return fail("distribution.chunks_in_flight must be at least 1");
  if (c.distribution.fanout < 1) return fail("distribution.fanout must be at least 1");
  if (!(c.distribution.uplink_mib_s >= 0))
    return fail("distribution.uplink_mib_s must be 0 (no cap) or more");
  if (c.memory.sim_mib < 1) return fail("memory.sim_mib must be at least 1");
  if (c.memory.model_mib < 1) return fail("memory.model_mib must be at least 1");
  if (c.model.policy == PolicyKind::torchscript && c.model.torchscript.empty())
    return fail("model.policy torchscript needs model.torchscript, the module's file");
  if (c.model.hidden.empty()) return fail("model.hidden needs at least one layer");
  for (auto h : c.model.hidden)
    if (h < 1) return fail("model.hidden widths must be positive");
  const auto& p = c.ppo;
  if (p.learning_rate <= 0) return fail("ppo.learning_rate must be positive");
  if (auto s = LearningRateSchedule::parse(p.learning_rate, p.learning_rate_schedule); !s)
    return fail("ppo.learning_rate_schedule: " + s.error().message());
  if (p.gamma < 0 || p.gamma > 1) return fail("ppo.gamma must be in [0, 1]");
  if (p.gae_lambda < 0 || p.gae_lambda > 1) return fail("ppo.gae_lambda must be in [0, 1]");
  if (p.clip <= 0) return fail("ppo.clip must be positive");
  if (p.epochs < 1) return fail("ppo.epochs must be at least 1");
  if (p.minibatch_size < 1) return fail("ppo.minibatch_size must be at least 1");
  if (p.batch_size < 1) return fail("ppo.batch_size must be at least 1");
  if (p.max_policy_lag < 0) return fail("ppo.max_policy_lag must not be negative");
  if (p.importance_weight_cap < 0) return fail("ppo.importance_weight_cap must not be negative");
  if (p.max_grad_norm <= 0) return fail("ppo.max_grad_norm must be positive");
  if (p.kl_coef < 0) return fail("ppo.kl_coef must not be negative");
  if (!(p.target_kl >= 0)) return fail("ppo.target_kl must be 0 (off) or more");
  if (!(std::isfinite(p.adaptive_kl) && p.adaptive_kl >= 0))
    return fail("ppo.adaptive_kl must be 0 (off) or a finite positive KL");
  if (!(p.value_clip >= 0)) return fail("ppo.value_clip must be 0 (off) or more");
  if (!(std::abs(c.model.initial_log_std) <= 10))
    return fail("model.initial_log_std must be a number in [-10, 10]");
  if ((*env)->validate)
    if (auto valid = (*env)->validate(c.env); !valid) return fail(valid.error().message());
  return Status::ok();
}

std::vector<ConfigKeyInfo> config_keys() {
  Config defaults;
  std::vector<ConfigKeyInfo> keys;
  for (const auto& f : config_settings(defaults))
    keys.push_back({f.key, f.description, format_setting(f)});
  return keys;
}

std::string dump_config(const Config& config) {
  Config copy = config;
  std::string out;
  for (const auto& f : config_settings(copy)) out += f.key + " = " + format_setting(f) + "\n";
  return out;
}

int env_buffers(const Config& c, int envs_per_sampler, int group_size) {
  if (c.run.mode == RunMode::sync) return 1;
  const int group = std::max(group_size, 1);
  for (int n = c.graph.env_buffers; n > 1; --n)
    if (envs_per_sampler % (n * group) == 0) return n;
  return 1;
}

int env_buffers(const Config& c) { return env_buffers(c, c.graph.envs_per_sampler, 0); }

int inference_torch_threads(const GraphConfig& g) {
  return g.inference_torch_threads > 0 ? g.inference_torch_threads : g.torch_threads;
}

int training_torch_threads(const GraphConfig& g) {
  return g.training_torch_threads > 0 ? g.training_torch_threads : g.torch_threads;
}

}  // namespace dvla
