// Checkpoints verified end to end: every file is listed with its size and checksum, a flipped
// byte, a cut or a missing file is refused naming the file, --resume's choice falls back past a
// damaged newest checkpoint, and a save that cannot write (a file-size limit: the write fails as
// on a full disk) returns an error, leaves no temporary behind and keeps the previous checkpoint.
#include "doctest_with_torch.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <torch/torch.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/learners/optimizer_state.hpp>
#include <dvla/runtime/storage/durable_file.hpp>
#include <dvla/runtime/storage/manifest.hpp>

using namespace dvla;
namespace fs = std::filesystem;

namespace {

// Weights of `n` floats as a WeightUpdate frame of `version`.
msg::WeightsFrame weights_of(size_t n, uint64_t version) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = 0.001f * static_cast<float>(i % 1000);
  msg::WeightUpdate update;
  update.version = version;
  update.flat = {values.data(), {static_cast<int64_t>(n)}};
  update.manifest = {{"w", {static_cast<int64_t>(n)}, 0}};
  return msg::build(update);
}

// An Adam state of a few steps, as a checkpoint saves it.
OptimizerState adam_state() {
  return [] {
    auto parameter = torch::ones({16}, torch::requires_grad());
    torch::optim::Adam adam({parameter}, torch::optim::AdamOptions(1e-3));
    for (int i = 0; i < 3; ++i) {
      adam.zero_grad();
      (parameter * parameter).sum().backward();
      adam.step();
    }
    return optimizer_bytes(adam);
  };
}

CheckpointState state_of(uint64_t version) {
  CheckpointState s;
  s.version = version;
  s.env_steps = 1000 * version;
  return s;
}

void flip_byte_in_the_middle(const fs::path& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  const auto size = fs::file_size(file);
  f.seekg(static_cast<std::streamoff>(size / 2));
  char c = 0;
  f.read(&c, 1);
  f.seekp(static_cast<std::streamoff>(size / 2));
  c = static_cast<char>(c ^ 0x5a);
  f.write(&c, 1);
}

std::string load_error(const std::string& dir) {
  auto loaded = load_checkpoint(dir);
  return loaded ? std::string("(it loaded)") : loaded.error().message();
}

// A fresh directory for one test case, removed at the end.
struct Scratch {
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("dvla-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  fs::path dir;
};

}  // namespace

TEST_CASE("a checkpoint lists each file with its size and checksum; damage is refused by name") {
  Scratch scratch("checkpoint-damage");
  const auto dir = (scratch.dir / "v1").string();
  REQUIRE(save_checkpoint(dir, Config{}, weights_of(4096, 1), state_of(1), adam_state()));
  auto manifest = read_manifest(dir);
  REQUIRE_MESSAGE(manifest, manifest.error().message());
  std::vector<std::string> listed;
  for (const auto& e : *manifest) {
    listed.push_back(e.file);
    CHECK(e.size == fs::file_size(fs::path(dir) / e.file));
  }
  CHECK(listed == std::vector<std::string>{"config.txt", "weights", "optimizer.pt", "state.json"});
  auto whole = load_checkpoint(dir);
  REQUIRE_MESSAGE(whole, whole.error().message());
  CHECK(whole->dir == dir);
  CHECK_FALSE(whole->optimizer_path.empty());

  for (const auto& file : listed) {
    CAPTURE(file);
    const auto copy = (scratch.dir / ("flipped-" + file)).string();
    fs::copy(dir, copy);
    flip_byte_in_the_middle(fs::path(copy) / file);
    const auto error = load_error(copy);
    CHECK_MESSAGE(error.find("'" + file + "' is damaged: its checksum") != std::string::npos,
                  error);
    CHECK(error.find(copy) != std::string::npos);  // and which checkpoint
  }
  const auto cut = (scratch.dir / "cut").string();
  fs::copy(dir, cut);
  fs::resize_file(fs::path(cut) / "weights", fs::file_size(fs::path(cut) / "weights") - 1);
  CHECK(load_error(cut).find("'weights' is damaged: 16") != std::string::npos);
  const auto no_optimizer = (scratch.dir / "no-optimizer").string();
  fs::copy(dir, no_optimizer);
  fs::remove(fs::path(no_optimizer) / "optimizer.pt");
  CHECK(load_error(no_optimizer).find("'optimizer.pt' is missing") != std::string::npos);
  const auto unfinished = (scratch.dir / "unfinished").string();
  fs::copy(dir, unfinished);
  fs::remove(fs::path(unfinished) / manifest_file_name);
  CHECK(load_error(unfinished).find("no manifest.json") != std::string::npos);
}

TEST_CASE("--resume's choice is the newest whole checkpoint; a damaged newer one is named") {
  Scratch scratch("checkpoint-fallback");
  CheckpointStore store(scratch.dir.string(), 3);
  for (uint64_t v = 1; v <= 3; ++v)
    REQUIRE(store.save(Config{}, weights_of(256, v), state_of(v), adam_state()));
  flip_byte_in_the_middle(scratch.dir / "checkpoints" / "v00000003" / "weights");
  std::vector<std::string> skipped;
  auto chosen = CheckpointStore::latest_valid(
      scratch.dir.string(), [&](const std::string& dir, const Error& why) {
        skipped.push_back(fs::path(dir).filename().string() + ": " + why.message());
      });
  REQUIRE_MESSAGE(chosen, chosen.error().message());
  CHECK(chosen->state.version == 2);
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("v00000003: ") == 0);
  CHECK(skipped[0].find("'weights' is damaged") != std::string::npos);
  // With every one damaged the error lists them all.
  for (const auto* v : {"v00000001", "v00000002"})
    flip_byte_in_the_middle(scratch.dir / "checkpoints" / v / "state.json");
  auto none = CheckpointStore::latest_valid(scratch.dir.string());
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("no checkpoint of") != std::string::npos);
  CHECK(none.error().message().find("v00000001") != std::string::npos);
}

TEST_CASE("an evaluation written into a checkpoint later keeps its manifest true") {
  Scratch scratch("checkpoint-evaluation");
  CheckpointStore store(scratch.dir.string(), 2);
  auto dir = store.save(Config{}, weights_of(256, 1), state_of(1));
  REQUIRE(dir);
  REQUIRE(store.record_evaluation(*dir, 0.75, 12.5));
  auto loaded = load_checkpoint(*dir);
  REQUIRE_MESSAGE(loaded, loaded.error().message());
  CHECK(loaded->state.eval_success == 0.75);
}

TEST_CASE("free space is checked before a save, and a lack of it is named ENOSPC") {
  Scratch scratch("free-space");
  auto free = free_bytes(scratch.dir.string());
  REQUIRE(free);
  CHECK(*free > 0);
  CHECK(require_free_space(scratch.dir.string(), 1, "a byte"));
  auto huge =
      require_free_space(scratch.dir.string(), *free + (uint64_t{1} << 40), "the checkpoint");
  REQUIRE_FALSE(huge);
  CHECK(huge.error().message().find("the checkpoint needs") == 0);
  CHECK(huge.error().message().find("(ENOSPC)") != std::string::npos);
}

TEST_CASE("a save that cannot write returns the reason, leaves no temporary, keeps the last") {
  Scratch scratch("checkpoint-full");
  const auto logdir = scratch.dir.string();
  CheckpointStore store(logdir, 3);
  REQUIRE(store.save(Config{}, weights_of(256, 1), state_of(1), adam_state()));
  // In a child process: files may grow to 256 KiB (the kernel then fails the write with EFBIG, as
  // a full disk fails it with ENOSPC). Version 2's weights are 1 MiB.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(60);  // its deadline: the save takes milliseconds
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{256 * 1024, 256 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto saved = store.save(Config{}, weights_of(256 * 1024, 2), state_of(2), adam_state());
    if (saved) _exit(10);
    std::fprintf(stderr, "%s\n", saved.error().message().c_str());
    const bool named = saved.error().message().find("(EFBIG)") != std::string::npos &&
                       saved.error().message().find("weights") != std::string::npos;
    _exit(named ? 0 : 11);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE_MESSAGE(!(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM),
                  "the child that saves ran past its deadline of 60 s");
  REQUIRE(WIFEXITED(status));  // not killed: no abort, no signal
  CHECK(WEXITSTATUS(status) == 0);
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(scratch.dir / "checkpoints"))
    entries.push_back(e.path().filename().string());
  std::sort(entries.begin(), entries.end());
  CHECK(entries == std::vector<std::string>{"latest", "v00000001"});  // no v00000002.tmp
  auto last = CheckpointStore::latest_valid(logdir);
  REQUIRE_MESSAGE(last, last.error().message());
  CHECK(last->state.version == 1);
  // And the next save, with room again, works.
  REQUIRE(store.save(Config{}, weights_of(256 * 1024, 2), state_of(2), adam_state()));
  CHECK(CheckpointStore::latest_valid(logdir)->state.version == 2);
}
