// TensorBoard event files: TFRecord framing with CRC-32C, damaged files named, and a dvla-ppo
// run's event files read back with TensorBoard's own schemas (a resumed run adds a file of its
// own that starts with a session start).
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <dvla/runtime/tensorboard/crc32c.hpp>
#include <dvla/runtime/tensorboard/event_file.hpp>
#include <dvla/runtime/tensorboard/record_file.hpp>
#include <dvla/runtime/tensorboard/run_board.hpp>

#include "run_command.hpp"

namespace fs = std::filesystem;
using namespace dvla::tensorboard;

namespace {

std::string fresh_dir(const std::string& name) {
  fs::remove_all(name);
  fs::create_directories(name);
  return name;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// dvla-ppo's exit status and output (stdout and stderr); its runs take seconds, 5 minutes is its
// deadline.
std::pair<int, std::string> run_ppo(const std::string& args) {
  auto o = dvla::test::run_command(std::string(DVLA_PPO) + " " + args, std::chrono::seconds(300));
  return {o.status, std::move(o.output)};
}

// Every scalar of a file: tag -> steps in the order written.
std::map<std::string, std::vector<int64_t>> scalar_steps(const std::vector<EventRecord>& events) {
  std::map<std::string, std::vector<int64_t>> steps;
  for (const auto& e : events)
    for (const auto& s : e.summary.scalars) steps[s.tag].push_back(e.step);
  return steps;
}

bool rising(const std::vector<int64_t>& steps) {
  for (size_t i = 1; i < steps.size(); ++i)
    if (steps[i] < steps[i - 1]) return false;
  return true;
}

}  // namespace

TEST_CASE("CRC-32C gives the published check values; the mask is TensorFlow's") {
  CHECK(crc32c("123456789") == 0xE3069283u);              // the CRC catalogue's check value
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);    // RFC 3720, B.4: 32 bytes of zeros
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);  // RFC 3720, B.4: 32 bytes of ones
  CHECK(masked_crc32c("") == 0xA282EAD8u);                // crc32c("") = 0, rotated and offset
}

TEST_CASE("records round-trip; a damaged or cut-short file is refused, naming the record") {
  const auto dir = fresh_dir("test_tensorboard_records");
  const auto path = dir + "/records";
  {
    auto writer = RecordWriter::create(path);
    REQUIRE(writer);
    REQUIRE(writer->append("first"));
    REQUIRE(writer->append(""));
    REQUIRE(writer->append(std::string(1000, 'x')));
    CHECK(!RecordWriter::create(path));  // never two writers on one file
  }
  auto records = read_records(path);
  REQUIRE(records);
  CHECK(*records == std::vector<std::string>{"first", "", std::string(1000, 'x')});
  const auto bytes = file_bytes(path);
  CHECK(bytes.size() == 3 * 16 + 5 + 1000);  // 8 length + 4 + 4 CRC bytes a record

  SUBCASE("a flipped data byte") {
    auto damaged = bytes;
    damaged[12 + 2] ^= 0x01;  // inside "first"
    write_bytes(path, damaged);
    auto read = read_records(path);
    REQUIRE(!read);
    CHECK(read.error().message().find("record at byte 0: the checksum of its 5 bytes of data") !=
          std::string::npos);
  }
  SUBCASE("a flipped length byte") {
    auto damaged = bytes;
    damaged[21] ^= 0x10;  // the second record's length
    write_bytes(path, damaged);
    auto read = read_records(path);
    REQUIRE(!read);
    CHECK(read.error().message().find("record at byte 21: the checksum of its length") !=
          std::string::npos);
  }
  SUBCASE("a file cut inside its last record") {
    write_bytes(path, bytes.substr(0, bytes.size() - 7));
    auto read = read_records(path);
    REQUIRE(!read);
    CHECK(read.error().message().find("record at byte 37: 1000 bytes of data do not fit") !=
          std::string::npos);
  }
  CHECK(read_records(dir + "/missing").error().message().find("cannot open") != std::string::npos);
}

TEST_CASE("an event file holds its version, scalars, histograms, images and session starts") {
  const auto dir = fresh_dir("test_tensorboard_events");
  auto writer = EventFileWriter::create(dir);
  REQUIRE(writer);
  CHECK(fs::path(writer->path()).filename().string().rfind("events.out.tfevents.", 0) == 0);
  Summary summary;
  summary.scalars = {{"train/mean_return", 21.5}, {"lag/mean", 0.75}};
  summary.histograms = {integer_histogram("lag/distribution", {1, 3, 0, 2})};
  summary.images = {{"video/eval", 8, 16, 3, std::string("GIF89a...")}};
  REQUIRE(writer->write(1024, summary));
  REQUIRE(writer->start_session(512));
  auto second = EventFileWriter::create(dir);  // the same second: a name of its own
  REQUIRE(second);
  CHECK(second->path() != writer->path());
  CHECK(event_files(dir) == std::vector<std::string>{writer->path(), second->path()});

  auto events = read_event_file(writer->path());
  REQUIRE(events);
  REQUIRE(events->size() == 3);
  CHECK((*events)[0].file_version == "brain.Event:2");
  const auto& e = (*events)[1];
  CHECK(e.step == 1024);
  REQUIRE(e.summary.scalars.size() == 2);
  CHECK(e.summary.scalars[0].tag == "train/mean_return");
  CHECK(e.summary.scalars[0].value == doctest::Approx(21.5));
  REQUIRE(e.summary.histograms.size() == 1);
  const auto& h = e.summary.histograms[0];
  CHECK(h.count == 6);
  CHECK(h.min == 0);
  CHECK(h.max == 3);
  CHECK(h.sum == 3 + 3 * 2);
  CHECK(h.sum_squares == 3 + 9 * 2);
  CHECK(h.limits == std::vector<double>{0.5, 1.5, 2.5, 3.5});
  CHECK(h.counts == std::vector<double>{1, 3, 0, 2});
  REQUIRE(e.summary.images.size() == 1);
  CHECK(e.summary.images[0].width == 16);
  CHECK(e.summary.images[0].encoded == "GIF89a...");
  CHECK((*events)[2].session_start);
  CHECK((*events)[2].step == 512);

  // Bytes whose framing checks but that are no Event.
  const auto junk = dir + "/events.out.tfevents.junk";
  {
    auto records = RecordWriter::create(junk);
    REQUIRE(records);
    REQUIRE(records->append(std::string("\xff\xff\xff", 3)));
  }
  auto refused = read_event_file(junk);
  REQUIRE(!refused);
  CHECK(refused.error().message().find("record 0 is not a TensorBoard Event") != std::string::npos);
}

TEST_CASE("a status's summary: per node and per env group where there are several") {
  dvla::RunStatus s;
  s.env_steps = 5000;
  s.version_skew = 2;
  s.policy_lag_samples = {10, 30};
  for (const char* name : {"a", "b"}) {
    dvla::NodeStatus n;
    n.name = name;
    n.state = "running";
    n.steps_per_second = 1500;
    n.weights_version = 7;
    s.nodes.push_back(n);
    s.groups.push_back({std::string("group_") + name, 2500, 10, 20.0, 0.5});
  }
  const auto summary = status_summary(s);
  std::map<std::string, double> scalars;
  for (const auto& v : summary.scalars) scalars[v.tag] = v.value;
  CHECK(scalars.at("cluster/version_skew") == 2);
  for (const char* node : {"a", "b"}) {
    CHECK(scalars.at(std::string("nodes/") + node + "/env_steps_per_second") == 1500);
    CHECK(scalars.at(std::string("nodes/") + node + "/weights_version") == 7);
    CHECK(scalars.at(std::string("nodes/") + node + "/running") == 1);
    CHECK(scalars.at(std::string("groups/group_") + node + "/mean_return") == 20);
  }
  REQUIRE(summary.histograms.size() == 1);
  CHECK(summary.histograms[0].tag == "lag/distribution");
  CHECK(summary.histograms[0].count == 40);
  dvla::RunStatus one_process;  // no nodes, one group: neither appears
  one_process.groups.push_back({"cartpole", 100, 1, 9.0, 0});
  for (const auto& v : status_summary(one_process).scalars) {
    CHECK(v.tag.rfind("nodes/", 0) == std::string::npos);
    CHECK(v.tag.rfind("groups/", 0) == std::string::npos);
    CHECK(v.tag != "cluster/version_skew");
  }
}

TEST_CASE("a run's event file: the expected tags at rising env steps; a resumed run appends") {
  const auto dir = fresh_dir("test_tensorboard_run");
  const std::string quick =
      " --set eval.episodes=3 --set eval.every=1 --set progress_interval_s=0.05";
  auto [status, output] = run_ppo("--max-env-steps 4000 --logdir " + dir + quick);
  INFO(output);
  REQUIRE(status == 0);
  auto files = event_files(dir);
  REQUIRE(files.size() == 1);
  auto first = read_event_file(files[0]);  // every record's CRCs checked
  REQUIRE(first);
  REQUIRE(first->size() >= 3);
  CHECK(first->front().file_version == "brain.Event:2");
  const auto steps = scalar_steps(*first);
  for (const char* tag :
       {"train/mean_return", "train/episodes", "throughput/env_steps_per_second", "policy/version",
        "lag/mean", "lag/dropped_stale_env_steps", "learner/policy_loss", "learner/value_loss",
        "learner/entropy", "learner/approx_kl", "learner/learning_rate", "lanes/sampling_busy",
        "lanes/training_busy", "lanes/inference_busy", "memory/sim_in_use_mib",
        "memory/model_in_use_mib", "faults/restarts", "eval/mean_return",
        "final_eval/mean_return"}) {
    INFO(tag);
    REQUIRE(steps.count(tag) == 1);
    CHECK(rising(steps.at(tag)));
  }
  CHECK(steps.at("train/mean_return").size() >= 2);
  CHECK(steps.at("train/mean_return").back() >= 4000);  // the step axis is env steps
  std::set<std::string> histograms;
  for (const auto& e : *first)
    for (const auto& h : e.summary.histograms) histograms.insert(h.tag);
  CHECK(histograms.count("lag/distribution") == 1);

  auto [resumed, resumed_output] = run_ppo("--resume " + dir + " --max-env-steps 8000" + quick);
  INFO(resumed_output);
  REQUIRE(resumed == 0);
  files = event_files(dir);
  REQUIRE(files.size() == 2);
  auto again = read_event_file(files[0]);  // the first run's file is left as it was
  REQUIRE(again);
  CHECK(again->size() == first->size());
  auto second = read_event_file(files[1]);
  REQUIRE(second);
  REQUIRE(second->size() >= 3);
  CHECK((*second)[0].file_version == "brain.Event:2");
  REQUIRE((*second)[1].session_start);
  const int64_t resumed_at = (*second)[1].step;
  CHECK(resumed_at > 0);
  CHECK(resumed_at <= steps.at("train/mean_return").back());  // a checkpoint of the first run
  const auto later = scalar_steps(*second);
  REQUIRE(later.count("train/mean_return") == 1);
  CHECK(rising(later.at("train/mean_return")));
  CHECK(later.at("train/mean_return").front() >= resumed_at);
  CHECK(later.at("train/mean_return").back() >= 8000);
}
