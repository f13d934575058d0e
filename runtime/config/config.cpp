#include <dvla/runtime/config/config.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include <dvla/core/text.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/runtime/config/learning_rate_schedule.hpp>

namespace dvla {
namespace {

using FieldRef =
    std::variant<uint64_t*, int*, int64_t*, double*, bool*, std::string*, std::vector<int64_t>*>;

struct Field {
  const char* key;
  const char* description;
  FieldRef ref;
};

// The one table of settings. Keep keys stable: users script them.
std::vector<Field> fields(Config& c) {
  return {
      {"seed", "seed of every random stream of the run", &c.run.seed},
      {"max_env_steps", "env steps to collect before training stops", &c.run.max_env_steps},
      {"max_seconds",
       "wall-clock seconds after which training stops as at max_env_steps (final checkpoint, "
       "evaluation, summary); counted per process, a resumed run gets its own; 0: no limit",
       &c.run.max_seconds},
      {"mode", "async (the Swimlane pipeline) | sync (lock-step: collect, train, distribute)",
       &c.run.mode},
      {"algo", "learning algorithm: ppo | grpo, or one a program registered", &c.run.algo},
      {"logdir", "directory for progress.jsonl and summary.json (empty: none)", &c.run.logdir},
      {"trace", "Chrome trace-event JSON of every lane's spans, for Perfetto (empty: none)",
       &c.run.trace},
      {"eval.episodes", "episodes of each evaluation (on the suite's evaluation states)",
       &c.run.eval_episodes},
      {"eval.every", "policy versions between evaluations during the run (0: only at the end)",
       &c.run.eval_every},
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
      {"env", "environment: cartpole | synthetic | tabletop", &c.env.name},
      {"synthetic.observation_size", "synthetic env: floats per observation",
       &c.env.synthetic.observation_size},
      {"synthetic.choices", "synthetic env: discrete actions", &c.env.synthetic.choices},
      {"synthetic.episode_length", "synthetic env: steps per episode",
       &c.env.synthetic.episode_length},
      {"synthetic.step_latency_us",
       "synthetic env: wall-clock cost of one env step (a batch of n sleeps n times this)",
       &c.env.synthetic.step_latency_us},
      {"tabletop.suite", "tabletop suite: lift | push | place_bowl | stack | mixed",
       &c.env.tabletop.suite},
      {"tabletop.image_size", "tabletop camera images are this many pixels square (64 or 128)",
       &c.env.tabletop.image_size},
      {"tabletop.front_camera", "tabletop: render the front camera", &c.env.tabletop.front_camera},
      {"tabletop.wrist_camera", "tabletop: render the wrist camera", &c.env.tabletop.wrist_camera},
      {"tabletop.threads",
       "tabletop env threads per batch, each with a GL context (0: one per core)",
       &c.env.tabletop.threads},
      {"tabletop.physics", "tabletop physics: fast (4 ms x 12) | reference (2 ms x 25)",
       &c.env.tabletop.physics},
      {"samplers", "sampler actors", &c.graph.samplers},
      {"envs_per_sampler", "environments each sampler steps as one batch",
       &c.graph.envs_per_sampler},
      {"graph.segment_length", "steps per trajectory segment", &c.graph.segment_length},
      {"graph.segments_in_flight", "unacknowledged segments a sampler may have before it waits",
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
       &c.model.policy},
      {"model.hidden", "hidden layer widths of the MLP actor-critic, comma-separated",
       &c.model.hidden},
      {"model.preset", "VLA size: tiny | small | base | large", &c.model.preset},
      {"model.torchscript", "TorchScript policy file (model.policy=torchscript)",
       &c.model.torchscript},
      {"model.init",
       "checkpoint directory (or weights file) the policy starts from, e.g. an SFT checkpoint "
       "(empty: fresh parameters from the seed)",
       &c.model.init},
      {"model.device",
       "where policies compute: cpu | cuda (cuda needs a LibTorch built with CUDA and a GPU; "
       "docs/gpu.md)",
       &c.model.device},
      {"ppo.learning_rate", "Adam learning rate", &c.ppo.learning_rate},
      {"ppo.learning_rate_schedule",
       "learning rates from given points on, POINT:RATE,... (e.g. 200:3e-5: ppo.learning_rate "
       "until version 200, then 3e-5); empty: ppo.learning_rate throughout",
       &c.ppo.learning_rate_schedule},
      {"ppo.learning_rate_schedule_unit",
       "what the schedule's points count: versions (policy updates) | samples (samples trained: "
       "alike per env step in sync and async mode)",
       &c.ppo.learning_rate_schedule_unit},
      {"ppo.gamma", "discount factor", &c.ppo.gamma},
      {"ppo.gae_lambda", "GAE lambda", &c.ppo.gae_lambda},
      {"ppo.clip", "clip range of the importance ratio", &c.ppo.clip},
      {"ppo.value_coef", "weight of the value loss", &c.ppo.value_coef},
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
      {"ppo.normalize_advantages", "normalise advantages per minibatch (ppo)",
       &c.ppo.normalize_advantages},
      {"ppo.kl_coef",
       "weight of the KL to the starting policy (model.init or the seed's), e.g. for grpo",
       &c.ppo.kl_coef},
      {"grpo.group_size",
       "grpo: episodes per group, all from one initial state (divides envs_per_sampler)",
       &c.grpo.group_size},
      {"grpo.reward", "grpo: episode score, success (1 or 0: sparse) | return (summed env reward)",
       &c.grpo.reward},
  };
}

template <class Int>
bool parse_int(const std::string& text, Int& out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && p == end && !text.empty();
}

bool parse(const std::string& text, uint64_t* out) {
  return text.find('-') == std::string::npos && parse_int(text, *out);
}
bool parse(const std::string& text, int* out) { return parse_int(text, *out); }
bool parse(const std::string& text, int64_t* out) { return parse_int(text, *out); }
bool parse(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}
bool parse(const std::string& text, bool* out) {
  if (text == "true" || text == "1" || text == "yes") return *out = true, true;
  if (text == "false" || text == "0" || text == "no") return *out = false, true;
  return false;
}
bool parse(const std::string& text, std::string* out) { return *out = text, true; }
bool parse(const std::string& text, std::vector<int64_t>* out) {
  std::vector<int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int64_t v;
    if (!parse_int(trim(item), v)) return false;
    values.push_back(v);
  }
  *out = values;
  return true;
}

const char* expected_form(const FieldRef& ref) {
  switch (ref.index()) {
    case 0:
      return "a non-negative integer";
    case 1:
    case 2:
      return "an integer";
    case 3:
      return "a finite number";
    case 4:
      return "true or false";
    case 5:
      return "text";
    default:
      return "comma-separated integers";
  }
}

std::string format(const FieldRef& ref) {
  return std::visit(
      [](auto* p) -> std::string {
        using T = std::decay_t<decltype(*p)>;
        if constexpr (std::is_same_v<T, std::string>)
          return *p;
        else if constexpr (std::is_same_v<T, bool>)
          return *p ? "true" : "false";
        else if constexpr (std::is_same_v<T, double>) {
          std::ostringstream s;
          s.precision(17);
          s << *p;
          return s.str();
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          std::string s;
          for (size_t i = 0; i < p->size(); ++i) s += (i ? "," : "") + std::to_string((*p)[i]);
          return s;
        } else
          return std::to_string(*p);
      },
      ref);
}

const Field* find(const std::vector<Field>& table, const std::string& key) {
  for (const auto& f : table)
    if (key == f.key) return &f;
  return nullptr;
}

Error unknown_key(const std::string& key) {
  return Error("unknown config key '" + key + "' (dvla-ppo --help lists every key)");
}

}  // namespace

Status set_config_value(Config& config, const std::string& key, const std::string& value) {
  const auto table = fields(config);
  const Field* f = find(table, key);
  if (!f) return unknown_key(key);
  const std::string text = trim(value);
  const bool ok = std::visit([&](auto* p) { return parse(text, p); }, f->ref);
  if (!ok) return Error("config key '" + key + "': '" + text + "' is not " + expected_form(f->ref));
  return Status::ok();
}

Expected<std::string> get_config_value(const Config& config, const std::string& key) {
  Config copy = config;
  const auto table = fields(copy);
  const Field* f = find(table, key);
  if (!f) return unknown_key(key);
  return format(f->ref);
}

Status load_config_file(Config& config, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error("cannot read config file '" + path + "'");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto text = trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const auto eq = text.find('=');
    const std::string where = path + ":" + std::to_string(number);
    if (eq == std::string::npos)
      return Error(where + ": expected 'key = value', got '" + text + "'");
    if (auto s = set_config_value(config, trim(text.substr(0, eq)), text.substr(eq + 1)); !s)
      return s.error().within(where);
  }
  return Status::ok();
}

Status validate(const Config& c) {
  auto fail = [](const std::string& what) { return Status(Error("invalid config: " + what)); };
  if (c.run.mode != "async" && c.run.mode != "sync")
    return fail("mode '" + c.run.mode + "' is not async or sync");
  // `algo` names an algorithm of the graph's LearnerRegistry: checked with the graph.
  if (c.run.algo.empty()) return fail("algo is empty");
  if (c.run.algo == "grpo") {
    if (c.grpo.group_size < 2) return fail("grpo.group_size must be at least 2");
    if (c.graph.envs_per_sampler % c.grpo.group_size != 0)
      return fail("grpo.group_size " + std::to_string(c.grpo.group_size) +
                  " does not divide envs_per_sampler " + std::to_string(c.graph.envs_per_sampler));
    if (c.grpo.reward != "success" && c.grpo.reward != "return")
      return fail("grpo.reward '" + c.grpo.reward + "' is not success or return");
  }
  if (c.env.name != "cartpole" && c.env.name != "synthetic" && c.env.name != "tabletop")
    return fail("env '" + c.env.name + "' is not available (cartpole, synthetic, tabletop)");
  if (c.run.max_env_steps == 0) return fail("max_env_steps must be at least 1");
  if (!(c.run.max_seconds >= 0)) return fail("max_seconds must be 0 (no limit) or positive");
  if (c.run.eval_episodes < 0) return fail("eval.episodes must not be negative");
  if (c.run.eval_every < 0) return fail("eval.every must not be negative");
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
  if (c.run.control_ping_interval_s < 0)
    return fail("control.ping_interval_s must be 0 (no pings) or positive");
  if (c.graph.samplers < 1) return fail("samplers must be at least 1");
  if (c.graph.envs_per_sampler < 1) return fail("envs_per_sampler must be at least 1");
  if (c.graph.segment_length < 1) return fail("graph.segment_length must be at least 1");
  if (c.graph.segments_in_flight < 1) return fail("graph.segments_in_flight must be at least 1");
  if (c.graph.env_buffers < 1) return fail("graph.env_buffers must be at least 1");
  if (c.graph.inference_replicas < 1) return fail("graph.inference_replicas must be at least 1");
  if (c.graph.torch_threads < 1) return fail("graph.torch_threads must be at least 1");
  if (c.graph.inference_torch_threads < 0)
    return fail("graph.inference_torch_threads must be 0 (graph.torch_threads) or more");
  if (c.graph.training_torch_threads < 0)
    return fail("graph.training_torch_threads must be 0 (graph.torch_threads) or more");
  if (c.graph.scheduler_threads < 1) return fail("graph.scheduler_threads must be at least 1");
  if (c.memory.sim_mib < 1) return fail("memory.sim_mib must be at least 1");
  if (c.memory.model_mib < 1) return fail("memory.model_mib must be at least 1");
  if (c.model.policy != "auto" && c.model.policy != "mlp" && c.model.policy != "vla" &&
      c.model.policy != "torchscript" && c.model.policy != "null")
    return fail("model.policy '" + c.model.policy + "' is not auto, mlp, vla, torchscript or null");
  if (c.model.preset != "tiny" && c.model.preset != "small" && c.model.preset != "base" &&
      c.model.preset != "large")
    return fail("model.preset '" + c.model.preset + "' is not tiny, small, base or large");
  if (c.model.policy == "torchscript" && c.model.torchscript.empty())
    return fail("model.policy torchscript needs model.torchscript, the module's file");
  if (c.model.hidden.empty()) return fail("model.hidden needs at least one layer");
  if (c.model.device != "cpu" && c.model.device != "cuda")
    return fail("model.device '" + c.model.device + "' is not cpu or cuda");
  for (auto h : c.model.hidden)
    if (h < 1) return fail("model.hidden widths must be positive");
  const auto& p = c.ppo;
  if (p.learning_rate <= 0) return fail("ppo.learning_rate must be positive");
  if (auto s = LearningRateSchedule::parse(p.learning_rate, p.learning_rate_schedule); !s)
    return fail("ppo.learning_rate_schedule: " + s.error().message());
  if (p.learning_rate_schedule_unit != "versions" && p.learning_rate_schedule_unit != "samples")
    return fail("ppo.learning_rate_schedule_unit '" + p.learning_rate_schedule_unit +
                "' is not versions or samples");
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
  if (c.env.name == "synthetic") {
    const auto& s = c.env.synthetic;
    if (s.observation_size < 1 || s.choices < 2 || s.episode_length < 1 || s.step_latency_us < 0)
      return fail(
          "synthetic env needs observation_size >= 1, choices >= 2, episode_length >= 1, "
          "step_latency_us >= 0");
  }
  if (c.env.name == "tabletop") {
    const auto& t = c.env.tabletop;
    if (auto s = envs::tabletop::suite(t.suite); !s) return fail(s.error().message());
    if (t.image_size < 16 || t.image_size > 512)
      return fail("tabletop.image_size must be in 16..512");
    if (t.threads < 0) return fail("tabletop.threads must not be negative");
    if (t.physics != "fast" && t.physics != "reference")
      return fail("tabletop.physics must be fast or reference");
  }
  return Status::ok();
}

std::vector<ConfigKeyInfo> config_keys() {
  Config defaults;
  std::vector<ConfigKeyInfo> keys;
  for (const auto& f : fields(defaults)) keys.push_back({f.key, f.description, format(f.ref)});
  return keys;
}

std::string dump_config(const Config& config) {
  Config copy = config;
  std::string out;
  for (const auto& f : fields(copy)) out += std::string(f.key) + " = " + format(f.ref) + "\n";
  return out;
}

int env_buffers(const Config& c, int envs_per_sampler, int group_size) {
  if (c.run.mode == "sync") return 1;
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
