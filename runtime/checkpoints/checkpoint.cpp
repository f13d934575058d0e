#include <dvla/runtime/checkpoints/checkpoint.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>

#include <dvla/runtime/checkpoints/weights_file.hpp>
#include <dvla/runtime/storage/durable_file.hpp>
#include <dvla/runtime/storage/manifest.hpp>

namespace dvla {
namespace fs = std::filesystem;

namespace {

Status write_text(const fs::path& path, const std::string& text) {
  return write_file_durably(path.string(), text);
}

// The checkpoint directories (vNNNNNNNN) under `root`, oldest first; none when it cannot be read.
std::vector<std::string> checkpoint_names(const fs::path& root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const auto name = entry.path().filename().string();
    if (entry.is_directory() && name.size() == 9 && name[0] == 'v') names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return Error("cannot read '" + path.string() + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

nlohmann::json to_json(const CheckpointState& s) {
  nlohmann::json j = {{"version", s.version},
                      {"env_steps", s.env_steps},
                      {"samples_trained", s.samples_trained},
                      {"episodes", s.episodes},
                      {"eval_success", s.eval_success},
                      {"eval_mean_return", s.eval_mean_return},
                      {"rng_state", s.rng_state},
                      {"learning_rate_factor", s.learning_rate_factor}};
  if (!s.algorithm_state.empty()) j["algorithm"] = nlohmann::json::parse(s.algorithm_state);
  return j;
}

Expected<CheckpointState> state_from(const fs::path& path) {
  auto text = read_text(path);
  if (!text) return text.error();
  try {
    const auto j = nlohmann::json::parse(*text);
    CheckpointState s;
    s.version = j.at("version").get<uint64_t>();
    s.env_steps = j.at("env_steps").get<uint64_t>();
    s.samples_trained = j.at("samples_trained").get<uint64_t>();
    s.episodes = j.at("episodes").get<uint64_t>();
    s.eval_success = j.at("eval_success").get<double>();
    s.eval_mean_return = j.at("eval_mean_return").get<double>();
    s.rng_state = j.at("rng_state").get<std::string>();
    // Checkpoints from before ppo.adaptive_kl have none: the set rate.
    s.learning_rate_factor = j.value("learning_rate_factor", 1.0);
    if (!(std::isfinite(s.learning_rate_factor) && s.learning_rate_factor > 0))
      return Error("'" + path.string() + "' has learning_rate_factor " +
                   std::to_string(s.learning_rate_factor) + ", expected a positive number");
    if (j.contains("algorithm")) s.algorithm_state = j.at("algorithm").dump();
    return s;
  } catch (const nlohmann::json::exception& e) {
    return Error("'" + path.string() + "' is not a checkpoint state: " + e.what());
  }
}

}  // namespace

namespace {

// One file of a checkpoint, as the bytes to write.
struct CheckpointFile {
  std::string name;
  std::string_view bytes;
};

// Writes each file, then the manifest: its presence says the others are whole.
Status write_files(const fs::path& dir, const std::vector<CheckpointFile>& files) {
  Manifest manifest;
  for (const auto& f : files) {
    if (auto s = write_file_durably((dir / f.name).string(), f.bytes); !s) return s;
    manifest.push_back(manifest_entry(f.name, f.bytes.data(), f.bytes.size()));
  }
  return write_manifest(dir.string(), manifest);
}

// Swaps the complete directory in: a reader sees the old checkpoint or the new one, never half.
Status swap_into_place(const fs::path& temporary, const fs::path& target) {
  const fs::path previous(target.string() + ".old");
  std::error_code ec;
  fs::remove_all(previous, ec);
  if (fs::exists(target)) {
    fs::rename(target, previous, ec);
    if (ec)
      return Error("cannot move the previous '" + target.string() + "' aside: " + ec.message());
  }
  fs::rename(temporary, target, ec);
  if (ec) return Error("cannot move '" + temporary.string() + "' into place: " + ec.message());
  fs::remove_all(previous, ec);
  const auto parent = target.parent_path();
  return sync_directory(parent.empty() ? "." : parent.string());
}

}  // namespace

Status save_checkpoint(const std::string& dir, const Config& config,
                       const msg::WeightsFrame& weights, const CheckpointState& state,
                       const std::function<Expected<std::string>()>& optimizer_state) {
  std::string optimizer;
  if (optimizer_state) {
    auto bytes = optimizer_state();
    if (!bytes) return bytes.error().within("saving checkpoint '" + dir + "'");
    optimizer = std::move(*bytes);
  }
  const std::string config_text = dump_config(config);
  std::string state_text;
  try {
    state_text = to_json(state).dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    return Error("saving checkpoint '" + dir + "': the learner algorithm's state is not JSON: " +
                 e.what());
  }
  std::vector<CheckpointFile> files = {
      {"config.txt", config_text},
      {"weights", {reinterpret_cast<const char*>(weights.data()), weights.size()}}};
  if (optimizer_state) files.push_back({"optimizer.pt", optimizer});
  files.push_back({"state.json", state_text});
  // Each file rounded up to a 4 KiB block, and a block for the manifest.
  uint64_t bytes = 4096;
  for (const auto& f : files) bytes += (f.bytes.size() + 4095) / 4096 * 4096;

  const fs::path target(dir), temporary(dir + ".tmp");
  std::error_code ec;
  fs::remove_all(temporary, ec);
  fs::create_directories(temporary, ec);
  Status saved = Status::ok();
  if (ec) saved = Error("cannot create '" + temporary.string() + "': " + ec.message());
  if (saved) saved = require_free_space(temporary.string(), bytes, "the checkpoint");
  if (saved) saved = write_files(temporary, files);
  if (saved) saved = swap_into_place(temporary, target);
  if (!saved) {
    fs::remove_all(temporary, ec);  // nothing half-written stays behind
    return saved.error().within("saving checkpoint '" + dir + "'");
  }
  return Status::ok();
}

Expected<Checkpoint> load_checkpoint(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) return Error("checkpoint '" + dir + "' is not a directory");
  if (auto whole = verify_manifest(dir); !whole)
    return whole.error().within("checkpoint '" + dir + "'");
  Checkpoint c;
  c.dir = dir;
  if (auto s = load_config_file(c.config, (root / "config.txt").string()); !s) return s.error();
  if (auto s = validate(c.config); !s) return s.error().within("checkpoint '" + dir + "'");
  auto weights = load_weights((root / "weights").string());
  if (!weights) return weights.error();
  c.weights = *weights;
  auto state = state_from(root / "state.json");
  if (!state) return state.error();
  c.state = *state;
  if (fs::exists(root / "optimizer.pt")) c.optimizer_path = (root / "optimizer.pt").string();
  return c;
}

Expected<std::string> resolve_checkpoint(const std::string& path) {
  if (fs::exists(fs::path(path) / "state.json")) return path;
  if (auto best = CheckpointStore::best(path)) return best;
  if (auto latest = CheckpointStore::latest(path)) return latest;
  return Error("'" + path + "' is neither a checkpoint (no state.json) nor a run directory with " +
               "checkpoints");
}

Expected<std::string> CheckpointStore::save(
    const Config& config, const msg::WeightsFrame& weights, const CheckpointState& state,
    const std::function<Expected<std::string>()>& optimizer_state) {
  char name[32];
  std::snprintf(name, sizeof(name), "v%08llu", static_cast<unsigned long long>(state.version));
  const fs::path dir = fs::path(root_) / name;
  std::error_code ec;
  fs::create_directories(root_, ec);
  remove_leftovers();
  if (auto s = save_checkpoint(dir.string(), config, weights, state, optimizer_state); !s)
    return s.error();
  if (auto s = write_text(fs::path(root_) / "latest", name); !s) return s.error();
  if (auto s = update_best(name, state.eval_success, state.eval_mean_return); !s) return s.error();
  if (auto s = prune(); !s) return s.error();
  return dir.string();
}

// The best so far: the highest evaluation success, then the highest mean return (envs without
// a goal have no success), the earliest on ties.
Status CheckpointStore::update_best(const std::string& name, double success, double mean_return) {
  if (success < 0) return Status::ok();  // not evaluated
  if (auto b = read_text(fs::path(root_) / "best"))
    if (auto best = state_from(fs::path(root_) / *b / "state.json"))
      if (std::make_pair(success, mean_return) <=
          std::make_pair(best->eval_success, best->eval_mean_return))
        return Status::ok();
  return write_text(fs::path(root_) / "best", name);
}

Status CheckpointStore::record_evaluation(const std::string& dir, double success,
                                          double mean_return) {
  const fs::path path(dir);
  if (!fs::exists(path / "state.json")) return Status::ok();  // pruned meanwhile
  auto state = state_from(path / "state.json");
  if (!state) return state.error();
  state->eval_success = success;
  state->eval_mean_return = mean_return;
  const auto text = to_json(*state).dump(2) + "\n";
  if (auto s = write_text(path / "state.json", text); !s) return s;
  if (auto s = update_manifest(dir, manifest_entry("state.json", text.data(), text.size())); !s)
    return s.error().within("checkpoint '" + dir + "'");
  if (auto s = update_best(path.filename().string(), success, mean_return); !s) return s;
  return prune();
}
Status CheckpointStore::prune() {
  const auto versions = checkpoint_names(root_);
  auto named_best = read_text(fs::path(root_) / "best");
  const std::string best = named_best ? *named_best : std::string();
  const auto keep = static_cast<size_t>(std::max(keep_, 1));
  std::error_code ec;
  for (size_t i = 0; i + keep < versions.size(); ++i)
    if (versions[i] != best) fs::remove_all(fs::path(root_) / versions[i], ec);
  return Status::ok();
}

// What a save that was killed left behind: v*.tmp (never complete) and v*.old whose checkpoint is
// in place (a kill between the two renames leaves only the .old: that one is kept).
void CheckpointStore::remove_leftovers() const {
  const auto ends = [](const std::string& path, const std::string& tail) {
    return path.size() > tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::vector<fs::path> leftovers;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root_, ec)) {
    const auto path = entry.path().string();
    if (ends(path, ".tmp") || (ends(path, ".old") && fs::exists(path.substr(0, path.size() - 4))))
      leftovers.push_back(entry.path());
  }
  for (const auto& path : leftovers) fs::remove_all(path, ec);
}

Expected<Checkpoint> CheckpointStore::latest_valid(const std::string& logdir,
                                                   const SkippedCheckpoint& skipped) {
  const fs::path root = fs::path(logdir) / "checkpoints";
  const auto versions = checkpoint_names(root);
  if (versions.empty()) return Error("'" + logdir + "' has no checkpoints");
  std::string reasons;
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    const auto& v = *it;
    auto checkpoint = load_checkpoint((root / v).string());
    if (checkpoint) return checkpoint;
    if (skipped) skipped((root / v).string(), checkpoint.error());
    reasons += "\n  " + checkpoint.error().message();
  }
  return Error("no checkpoint of '" + logdir + "' is whole:" + reasons);
}

Expected<std::string> CheckpointStore::latest(const std::string& logdir) {
  auto name = read_text(fs::path(logdir) / "checkpoints" / "latest");
  if (!name) return Error("'" + logdir + "' has no checkpoints (no checkpoints/latest)");
  return (fs::path(logdir) / "checkpoints" / *name).string();
}

Expected<std::string> CheckpointStore::best(const std::string& logdir) {
  auto name = read_text(fs::path(logdir) / "checkpoints" / "best");
  if (!name) return Error("'" + logdir + "' has no evaluated checkpoint (no checkpoints/best)");
  return (fs::path(logdir) / "checkpoints" / *name).string();
}

}  // namespace dvla
