// Writes the seed corpus of the fuzz targets: valid inputs of every kind they take, from which
// libFuzzer mutates. Run once, and again when a schema or file format changes:
//   build-fuzz/fuzz/fuzz_seed_corpus fuzz/corpus
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <dvla/messages/all.hpp>
#include <dvla/messages/demonstration.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/datasets/demonstration_file.hpp>
#include <dvla/runtime/tensorboard/event_file.hpp>
#include <dvla/runtime/video/gif_file.hpp>

namespace fs = std::filesystem;
using namespace dvla;
using namespace dvla::msg;

namespace {

template <class T>
std::vector<T> iota(size_t n, T start = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return v;
}

void write(const fs::path& file, const std::string& bytes) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
}

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// fuzz_frames' input: the kind's byte, then the frame.
template <Kind K>
void frame_seed(const fs::path& dir, const std::string& name, const Frame<K>& frame) {
  std::string bytes(1, static_cast<char>(K));
  bytes.append(reinterpret_cast<const char*>(frame.data()), frame.size());
  write(dir / "fuzz_frames" / name, bytes);
}

struct Data {
  std::vector<float> obs = iota<float>(2 * 3 * 4), actions = iota<float>(2 * 3),
                     rewards = iota<float>(6, 1.f), log_probs = iota<float>(6, -3.f),
                     values = iota<float>(6, 0.5f), bootstrap = {7.f, 8.f, 9.f},
                     final_obs = {1.f, 2.f, 3.f, 4.f}, flat = iota<float>(10);
  std::vector<uint8_t> terminated = {0, 1, 0, 0, 0, 0}, truncated = {0, 0, 0, 0, 0, 1},
                       success = {0, 1, 0, 0, 0, 0}, images = iota<uint8_t>(2 * 3 * 2 * 2 * 2 * 3);
  std::vector<int32_t> tokens = iota<int32_t>(2 * 3 * 5);
};

DatasetHeader lift_header() {
  DatasetHeader h;
  h.env = "tabletop";
  h.suite = "lift";
  h.image_size = 2;
  h.front_camera = true;
  return h;
}

// Six steps of lift with `cameras` 2x2 cameras (views into `d`).
Demonstration lift_demonstration(const Data& d, int64_t cameras) {
  Demonstration demo;
  demo.task = "lift";
  demo.instruction = "lift the red cube";
  demo.observations = {{d.obs.data(), {6, 4}}, {d.images.data(), {6, cameras, 2, 2, 3}},
                       {d.tokens.data(), {6, 5}}};
  demo.actions = {d.actions.data(), {6, 1}};
  return demo;
}

void frames(const fs::path& dir, const Data& d) {
  ObservationBatch o;
  o.sampler_id = 1;
  o.sequence = 2;
  o.observations = {{d.obs.data(), {6, 4}}, {d.images.data(), {6, 2, 2, 2, 3}},
                    {d.tokens.data(), {6, 5}}};
  frame_seed(dir, "observation_batch", build(o));
  frame_seed(dir, "action_batch",
             build(ActionBatch{1, 2, 3, {d.actions.data(), {6, 1}}, {d.log_probs.data(), {6}},
                               {d.values.data(), {6}}}));
  TrajectorySegment s;
  s.sampler_id = 3;
  s.sequence = 11;
  s.observations.state = {d.obs.data(), {2, 3, 4}};
  s.observations.images = {d.images.data(), {2, 3, 2, 2, 2, 3}};
  s.observations.instructions = {d.tokens.data(), {2, 3, 5}};
  s.actions = {d.actions.data(), {2, 3, 1}};
  s.rewards = {d.rewards.data(), {2, 3}};
  s.terminated = {d.terminated.data(), {2, 3}};
  s.truncated = {d.truncated.data(), {2, 3}};
  s.log_probs = {d.log_probs.data(), {2, 3}};
  s.values = {d.values.data(), {2, 3}};
  s.bootstrap_values = {d.bootstrap.data(), {3}};
  s.policy_versions = {4, 5};
  s.final_observations.state = {d.final_obs.data(), {1, 4}};
  s.final_indices = {5};
  s.success = {d.success.data(), {2, 3}};
  s.groups = {0, 0, 1};
  frame_seed(dir, "trajectory_segment", build(s));
  // State only, with what the envs observe after the last step (ppo.advantage_values=learner).
  TrajectorySegment valued = s;
  valued.observations.images = {};
  valued.observations.instructions = {};
  valued.groups = {};
  valued.bootstrap_observations.state = {d.obs.data(), {3, 4}};
  frame_seed(dir, "trajectory_segment_bootstrap", build(valued));
  WeightUpdate w;
  w.version = 7;
  w.manifest = {{"a.weight", {2, 3}, 0}, {"a.bias", {4}, 6}};
  w.flat = {d.flat.data(), {10}};
  const auto weights = build(w);
  frame_seed(dir, "weight_update", weights);
  if (auto bf16 = with_precision(weights, WeightPrecision::bfloat16))
    frame_seed(dir, "weight_update_bf16", *bf16);
  WeightChunk c;
  c.version = 7;
  c.count = 1;
  c.total_bytes = weights.size();
  c.data = weights.data();
  c.size = weights.size();
  frame_seed(dir, "weight_chunk", build(c));
  frame_seed(dir, "version_announcement", build(VersionAnnouncement{5, 1000, 24, 1.5}));
  frame_seed(dir, "control_command", build(ControlCommand{Command::checkpoint, 99, "/tmp/c"}));
  frame_seed(dir, "metrics_sampling",
             build(Metrics{"sampler/1", 1, SamplingReport{0, 64, {1.0, 2.0}, {true, false}, 0}}));
  frame_seed(dir, "metrics_evaluation",
             build(Metrics{"evaluator", 2,
                           EvaluationReport{3, 20, 0.5, 10, 30, {}, "videos/v3.gif", ""}}));
  frame_seed(dir, "metrics_rejection", build(Metrics{"inference/0", 3, RejectionReport{"x"}}));
  frame_seed(dir, "dataset_header", build(lift_header()));
  frame_seed(dir, "dataset_footer", build(DatasetFooter{2, 12345}));
  auto demo = lift_demonstration(d, 2);
  demo.success = true;
  frame_seed(dir, "demonstration", build(demo));
}

void dataset(const fs::path& dir, const fs::path& scratch, const Data& d) {
  const auto file = scratch / "seed.dvla";
  auto writer = DemonstrationWriter::create(file.string(), lift_header());
  if (!writer) throw std::runtime_error(writer.error().message());
  auto demo = lift_demonstration(d, 1);
  for (int i = 0; i < 2; ++i) {
    demo.success = i == 1;
    if (auto s = (*writer)->write(demo); !s) throw std::runtime_error(s.error().message());
  }
  if (auto s = (*writer)->finish(); !s) throw std::runtime_error(s.error().message());
  write(dir / "fuzz_dataset" / "two_episodes", read(file));
}

void checkpoint(const fs::path& dir, const fs::path& scratch, const Data& d) {
  const auto at = scratch / "checkpoint";
  WeightUpdate w;
  w.version = 7;
  w.manifest = {{"a.weight", {2, 3}, 0}, {"a.bias", {4}, 6}};
  w.flat = {d.flat.data(), {10}};
  CheckpointState state;
  state.version = 7;
  state.env_steps = 1000;
  state.rng_state = "00ff";
  Config config;
  if (auto s = save_checkpoint(at.string(), config, build(w), state, {}); !s)
    throw std::runtime_error(s.error().message());
  std::string sealed(1, '\1'), raw(1, '\0');
  for (const char* file : {"manifest.json", "config.txt", "weights", "state.json"}) {
    const auto bytes = read(at / file);
    const std::string separator = std::string(file) == "manifest.json" ? "" : "\n@@@\n";
    sealed += separator + (separator.empty() ? "" : bytes);
    raw += separator + bytes;
  }
  write(dir / "fuzz_checkpoint" / "sealed", sealed);
  write(dir / "fuzz_checkpoint" / "as_saved", raw);
}

void configs(const fs::path& dir) {
  write(dir / "fuzz_config" / "defaults", dump_config(Config{}));
  write(dir / "fuzz_config" / "lift",
        "# the lift recipe\nenv = tabletop\ntabletop.suite = lift\nalgo = grpo\n"
        "grpo.group_size = 8\nppo.learning_rate = 5e-5\neval.every = 50\n"
        "model.policy = vla\nsamplers = 2\nenvs_per_sampler = 16\n");
  write(dir / "fuzz_config" / "cluster",
        "cluster.listen = 127.0.0.1:0\ncluster.nodes = 2\ndistribution.wire_dtype = bfloat16\n"
        "fault.max_restarts = 5\nfault.window_s = 60\nmode = sync\n");
  write(dir / "fuzz_toml_config" / "sections",
        "# the lift recipe, as configs/lift-grpo.toml\nenv = \"tabletop\"\nalgo = \"grpo\"\n"
        "samplers = 2\n"
        "max_env_steps = 3000000\n\n[tabletop]\nsuite = \"lift\"\nimage_size = 32\n\n"
        "[ppo]\nlearning_rate = 1e-4\nlearning_rate_schedule = \"200:3e-5\"\n\n"
        "[eval]\nevery = 20\nepisodes = 120\n");
  write(dir / "fuzz_toml_config" / "dotted",
        "cluster.listen = \"127.0.0.1:0\"\ncluster.nodes = 2\nmode = \"sync\"\n"
        "fault.restart_trainer = true\nppo.clip = 0.2\n");
}

}  // namespace

// An event file of every kind of event dvla writes, and a GIF of a few small frames.
void tensorboard_and_video(const fs::path& dir, const fs::path& scratch) {
  auto writer = tensorboard::EventFileWriter::create(scratch.string());
  if (!writer) throw std::runtime_error(writer.error().message());
  tensorboard::Summary summary;
  summary.scalars = {{"train/mean_return", 12.5}, {"lag/mean", 0.5}};
  summary.histograms = {tensorboard::integer_histogram("lag/distribution", {3, 1, 2})};
  summary.images = {{"eval/video", 2, 2, 3, "GIF89a"}};
  if (!writer->write(1024, summary) || !writer->start_session(512))
    throw std::runtime_error("writing the seed event file failed");
  write(dir / "fuzz_event_file" / "events", read(writer->path()));
  std::vector<RgbImage> frames;
  for (int k = 0; k < 3; ++k) {
    RgbImage image(6, 4);
    for (size_t i = 0; i < image.pixels.size(); ++i)
      image.pixels[i] = static_cast<uint8_t>(40 * k + 7 * i);
    frames.push_back(image);
  }
  auto gif = encode_gif(frames, 10);
  if (!gif) throw std::runtime_error(gif.error().message());
  write(dir / "fuzz_gif" / "three_frames.gif", *gif);
}

// fuzz/seed_cluster_messages.cpp
void seed_cluster_messages(const fs::path& corpus);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_seed_corpus CORPUS_DIR (fuzz/corpus)\n";
    return 2;
  }
  const fs::path dir(argv[1]);
  const auto scratch = fs::temp_directory_path() / "dvla-seed-corpus";
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  const Data data;
  try {
    frames(dir, data);
    dataset(dir, scratch, data);
    checkpoint(dir, scratch, data);
    seed_cluster_messages(dir);
    configs(dir);
    tensorboard_and_video(dir, scratch);
  } catch (const std::exception& e) {
    std::cerr << "fuzz_seed_corpus: " << e.what() << "\n";
    return 1;
  }
  fs::remove_all(scratch);
  return 0;
}
