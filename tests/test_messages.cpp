// Every schema round-trips through build() and read(); malformed frames are refused with an
// error that names the problem.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <dvla/core/bfloat16.hpp>
#include <dvla/messages/trajectory_segment.capnp.h>
#include <dvla/messages/all.hpp>
#include <dvla/messages/codec.hpp>

using namespace dvla;
using namespace dvla::msg;

namespace {

template <class T>
std::vector<T> iota(size_t n, T start = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return v;
}

template <class T>
bool same(const TensorRef<T>& t, const std::vector<T>& v) {
  return t.numel() == static_cast<int64_t>(v.size()) &&
         std::memcmp(t.data, v.data(), v.size() * sizeof(T)) == 0;
}

// A frame holding `bytes` as they are (to feed readers hand-made damage).
template <class F>
F frame_of(const void* data, size_t size) {
  return F(Bytes::copy_of(data, size));
}

// A valid two-step, three-env segment with one truncated step.
struct SegmentData {
  std::vector<float> obs = iota<float>(2 * 3 * 4), actions = iota<float>(2 * 3, 0.f),
                     rewards = iota<float>(6, 1.f), log_probs = iota<float>(6, -3.f),
                     values = iota<float>(6, 0.5f), bootstrap = {7.f, 8.f, 9.f},
                     final_obs = {1.f, 2.f, 3.f, 4.f}, after_obs = iota<float>(3 * 4, 20.f);
  std::vector<uint8_t> terminated = {0, 1, 0, 0, 0, 0}, truncated = {0, 0, 0, 0, 0, 1},
                       success = {0, 1, 0, 0, 0, 0}, images = iota<uint8_t>(2 * 3 * 2 * 2 * 2 * 3),
                       final_images = iota<uint8_t>(2 * 2 * 2 * 3, 7),
                       after_images = iota<uint8_t>(3 * 2 * 2 * 2 * 3, 9);
  std::vector<int32_t> tokens = iota<int32_t>(2 * 3 * 5), final_tokens = iota<int32_t>(5, 3),
                       after_tokens = iota<int32_t>(3 * 5, 1);

  TrajectorySegment segment() const {
    TrajectorySegment s;
    s.sampler_id = 3;
    s.sequence = 11;
    s.observations.state = {obs.data(), {2, 3, 4}};
    s.observations.images = {images.data(), {2, 3, 2, 2, 2, 3}};  // two 2x2 cameras
    s.observations.instructions = {tokens.data(), {2, 3, 5}};
    s.actions = {actions.data(), {2, 3, 1}};
    s.rewards = {rewards.data(), {2, 3}};
    s.terminated = {terminated.data(), {2, 3}};
    s.truncated = {truncated.data(), {2, 3}};
    s.log_probs = {log_probs.data(), {2, 3}};
    s.values = {values.data(), {2, 3}};
    s.bootstrap_values = {bootstrap.data(), {3}};
    s.policy_versions = {4, 5};
    s.final_observations.state = {final_obs.data(), {1, 4}};
    s.final_observations.images = {final_images.data(), {1, 2, 2, 2, 3}};
    s.final_observations.instructions = {final_tokens.data(), {1, 5}};
    s.success = {success.data(), {2, 3}};
    s.final_indices = {5};
    s.bootstrap_observations.state = {after_obs.data(), {3, 4}};
    s.bootstrap_observations.images = {after_images.data(), {3, 2, 2, 2, 3}};
    s.bootstrap_observations.instructions = {after_tokens.data(), {3, 5}};
    s.last = true;
    return s;
  }
};

}  // namespace

TEST_CASE("observation batch round-trips") {
  auto obs = iota<float>(2 * 5, -1.f);
  auto images = iota<uint8_t>(2 * 1 * 4 * 4 * 3);
  auto tokens = iota<int32_t>(2 * 6);
  ObservationBatch in;
  in.sampler_id = 7;
  in.sequence = 42;
  in.observations = {
      {obs.data(), {2, 5}}, {images.data(), {2, 1, 4, 4, 3}}, {tokens.data(), {2, 6}}};
  auto frame = build(in);
  CHECK(reinterpret_cast<uintptr_t>(frame.data()) % 8 == 0);
  auto out = read(frame);
  REQUIRE(out);
  CHECK(out->sampler_id == 7);
  CHECK(out->sequence == 42);
  CHECK(out->observations.state.shape == std::vector<int64_t>{2, 5});
  CHECK(same(out->observations.state, obs));
  CHECK(same(out->observations.images, images));
  CHECK(same(out->observations.instructions, tokens));
  CHECK(out->envs() == 2);
  // Read in place: the values live inside the frame's bytes.
  const auto* p = reinterpret_cast<const std::byte*>(out->observations.images.data);
  CHECK((p >= frame.data() && p < frame.data() + frame.size()));
}

TEST_CASE("action batch round-trips") {
  auto actions = iota<float>(3 * 2), log_probs = iota<float>(3, -2.f),
       values = iota<float>(3, 10.f);
  ActionBatch in{1, 9, 77, {actions.data(), {3, 2}}, {log_probs.data(), {3}}, {values.data(), {3}}};
  auto out = read(build(in));
  REQUIRE(out);
  CHECK(out->policy_version == 77);
  CHECK(out->sequence == 9);
  CHECK(same(out->actions, actions));
  CHECK(same(out->log_probs, log_probs));
  CHECK(same(out->values, values));
}

TEST_CASE("trajectory segment round-trips") {
  SegmentData d;
  auto frame = build(d.segment());
  auto out = read(frame);
  REQUIRE(out);
  CHECK(out->sampler_id == 3);
  CHECK(out->sequence == 11);
  CHECK(out->last);
  CHECK(out->steps() == 2);
  CHECK(out->envs() == 3);
  CHECK(same(out->observations.state, d.obs));
  CHECK(same(out->observations.images, d.images));
  CHECK(same(out->observations.instructions, d.tokens));
  CHECK(same(out->success, d.success));
  CHECK(same(out->actions, d.actions));
  CHECK(same(out->rewards, d.rewards));
  CHECK(same(out->terminated, d.terminated));
  CHECK(same(out->truncated, d.truncated));
  CHECK(same(out->log_probs, d.log_probs));
  CHECK(same(out->values, d.values));
  CHECK(same(out->bootstrap_values, d.bootstrap));
  CHECK(out->policy_versions == std::vector<uint64_t>{4, 5});
  CHECK(out->oldest_version() == 4);
  CHECK(out->final_indices == std::vector<uint32_t>{5});
  CHECK(same(out->final_observations.state, d.final_obs));
  CHECK(same(out->final_observations.images, d.final_images));
  CHECK(same(out->final_observations.instructions, d.final_tokens));
  CHECK(same(out->bootstrap_observations.state, d.after_obs));
  CHECK(same(out->bootstrap_observations.images, d.after_images));
  CHECK(same(out->bootstrap_observations.instructions, d.after_tokens));
  CHECK(out->valid_steps() == 6);
  // Without bootstrap observations (the behaviour's values suffice) none arrive.
  auto without = d.segment();
  without.bootstrap_observations = {};
  auto plain = read(build(without));
  REQUIRE(plain);
  CHECK(plain->bootstrap_observations.state.rank() == 0);
}

TEST_CASE("weight update round-trips") {
  auto flat = iota<float>(6 + 3, 0.25f);
  WeightUpdate in;
  in.version = 12;
  in.manifest = {{"layer.weight", {2, 3}, 0}, {"layer.bias", {3}, 6}};
  in.flat = {flat.data(), {9}};
  auto out = read(build(in));
  REQUIRE(out);
  CHECK(out->version == 12);
  CHECK(out->manifest == in.manifest);
  CHECK(same(out->flat, flat));
}

TEST_CASE(
    "a weight update in bfloat16 takes half the bytes, rounds to nearest even, widens exactly") {
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even is 1; 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
  std::vector<float> flat = {1.0f, 1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -2.5f, 3.14159f, 0.0f,
                             1e-20f, -65504.0f, 123456.0f};
  WeightUpdate in;
  in.version = 3;
  in.manifest = {{"w", {3, 3}, 0}};
  in.flat = {flat.data(), {9}};
  const auto wide = build(in);
  in.precision = WeightPrecision::bfloat16;
  const auto narrow = build(in);
  CHECK(narrow.size() < wide.size());
  auto out = read(narrow);
  REQUIRE(out);
  CHECK(out->precision == WeightPrecision::bfloat16);
  CHECK(out->manifest == in.manifest);
  REQUIRE(out->flat_bf16.numel() == 9);
  CHECK(from_bfloat16(out->flat_bf16.data[0]) == 1.0f);
  CHECK(from_bfloat16(out->flat_bf16.data[1]) == 1.0f);
  CHECK(from_bfloat16(out->flat_bf16.data[2]) == 1.0f + 1.0f / 64);
  for (size_t i = 0; i < flat.size(); ++i)
    CHECK(std::fabs(from_bfloat16(out->flat_bf16.data[i]) - flat[i]) <=
          std::fabs(flat[i]) / 256);
  // Widened back: float32 again, exactly the rounded values; converting to the precision a frame
  // has already is that frame.
  auto widened = with_precision(narrow, WeightPrecision::float32);
  REQUIRE(widened);
  auto back = read(*widened);
  REQUIRE(back);
  CHECK(back->precision == WeightPrecision::float32);
  for (int i = 0; i < 9; ++i) CHECK(back->flat.data[i] == from_bfloat16(out->flat_bf16.data[i]));
  auto same_frame = with_precision(narrow, WeightPrecision::bfloat16);
  REQUIRE(same_frame);
  CHECK(same_frame->data() == narrow.data());
  // A value too large for bfloat16 rounds to infinity, which a reader refuses by element.
  flat[4] = 3.4e38f;
  auto overflow = read(build(in));
  REQUIRE_FALSE(overflow);
  CHECK(overflow.error().message().find("non-finite bfloat16 value at element 4") !=
        std::string::npos);
}

TEST_CASE("version announcement, control command and metrics round-trip") {
  auto v = read(build(VersionAnnouncement{5, 1000, 24, 1.5}));
  REQUIRE(v);
  CHECK(v->version == 5);
  CHECK(v->samples_trained == 1000);
  CHECK(v->samples_dropped == 24);
  CHECK(v->policy_lag_mean == 1.5);

  auto c = read(build(ControlCommand{Command::checkpoint, 99, "/tmp/ckpt"}));
  REQUIRE(c);
  CHECK(c->kind == Command::checkpoint);
  CHECK(c->request_id == 99);
  CHECK(c->argument == "/tmp/ckpt");
  auto e = read(build(ControlCommand{Command::evaluate, 100, {}}));
  REQUIRE(e);
  CHECK(e->kind == Command::evaluate);
  CHECK(to_text(e->kind) == "evaluate");
  // A kind from a newer peer that this build does not know is refused by name.
  auto unknown = read(build(ControlCommand{static_cast<Command>(6), 101, {}}));
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("'kind' is not a known command") != std::string::npos);
}

TEST_CASE("metrics travel as typed reports of each kind and non-finite numbers are refused") {
  SamplingReport sampling{2, 512, {21.5, -3.0}, {true, false}, 1};
  auto back = read(build(Metrics{"sampler/1", 123456789, sampling}));
  REQUIRE(back);
  CHECK(back->source == "sampler/1");
  CHECK(back->timestamp_ns == 123456789);
  const auto& s = std::get<SamplingReport>(back->report);
  CHECK(s.group == 2);
  CHECK(s.env_steps == 512);
  CHECK(s.episode_returns == sampling.episode_returns);
  CHECK(s.episode_successes == sampling.episode_successes);
  CHECK(s.segments_dropped == 1);

  LearningReport learning;
  learning.version = 7;
  learning.stats.samples = 2048;
  learning.stats.policy_loss = -0.25;
  learning.stats.clip_fraction = 0.125;
  learning.stats.importance_weight_ess = 0.75;
  learning.policy_lag = {10, 0, 3};
  back = read(build(Metrics{"trainer", 1, learning}));
  REQUIRE(back);
  const auto& l = std::get<LearningReport>(back->report);
  CHECK(l.version == 7);
  CHECK(l.stats.samples == 2048);
  CHECK(l.stats.policy_loss == -0.25);
  CHECK(l.stats.clip_fraction == 0.125);
  CHECK(l.stats.importance_weight_ess == 0.75);
  CHECK(l.policy_lag == learning.policy_lag);

  EvaluationReport evaluation{9, 20, 0.5, 12.5, 40, {{"lift", 0.75}, {"stack", 0.25}}};
  back = read(build(Metrics{"evaluator", 2, evaluation}));
  REQUIRE(back);
  const auto& e = std::get<EvaluationReport>(back->report);
  CHECK(e.version == 9);
  CHECK(e.episodes == 20);
  CHECK(e.success_rate == 0.5);
  CHECK(e.success_per_family == evaluation.success_per_family);

  back = read(build(Metrics{"inference/0", 3, RejectionReport{"bad shape"}}));
  REQUIRE(back);
  CHECK(std::get<RejectionReport>(back->report).reason == "bad shape");

  sampling.episode_returns[1] = std::nan("");
  auto refused = read(build(Metrics{"sampler/1", 4, sampling}));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message() == "metrics: field 'episodeReturns' is not finite");
  evaluation.success_rate = 1.5;
  refused = read(build(Metrics{"evaluator", 5, evaluation}));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message() == "metrics: field 'successRate' is not in [0, 1]");
}

TEST_CASE("truncated frames are rejected with an error naming the message") {
  SegmentData d;
  auto frame = build(d.segment());
  for (size_t keep : {size_t{0}, size_t{4}, size_t{8}, frame.size() / 2, frame.size() - 8}) {
    CAPTURE(keep);
    auto out = read(frame_of<SegmentFrame>(frame.data(), keep));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("trajectory segment") == 0);
  }
  auto odd = read(frame_of<SegmentFrame>(frame.data(), frame.size() - 3));
  REQUIRE_FALSE(odd);
  CHECK(odd.error().message().find("not a whole number of 8-byte words") != std::string::npos);
}

TEST_CASE("garbage frames are rejected, never crash") {
  std::vector<uint64_t> words(64);
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int trial = 0; trial < 200; ++trial) {
    for (auto& w : words) w = x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    CHECK_FALSE(read(frame_of<SegmentFrame>(words.data(), words.size() * 8)));
    CHECK_FALSE(read(frame_of<WeightsFrame>(words.data(), words.size() * 8)));
  }
  // A frame of a different kind is not a valid segment either.
  auto obs = iota<float>(4);
  ObservationBatch batch;
  batch.observations.state = {obs.data(), {1, 4}};
  auto wrong = build(batch);
  auto out = read(frame_of<SegmentFrame>(wrong.data(), wrong.size()));
  REQUIRE_FALSE(out);
  CHECK(out.error().message() ==
        "trajectory segment: field 'observations.state' has shape [1,4], expected rank at least 3");
}

TEST_CASE("shape-inconsistent frames are rejected naming the field") {
  SegmentData d;
  SUBCASE("rewards for a different number of envs") {
    auto s = d.segment();
    s.rewards.shape = {3, 2};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("'rewards'") != std::string::npos);
  }
  SUBCASE("one policy version too few") {
    auto s = d.segment();
    s.policy_versions = {4};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("policyVersions") != std::string::npos);
  }
  SUBCASE("images for a different number of steps than the state") {
    auto s = d.segment();
    s.observations.images.shape = {1, 6, 2, 2, 2, 3};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("'observations.images'") != std::string::npos);
  }
  SUBCASE("images that are not RGB") {
    auto s = d.segment();
    s.observations.images.shape = {2, 3, 2, 2, 3, 2};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("is not RGB") != std::string::npos);
  }
  SUBCASE("a negative token id") {
    auto s = d.segment();
    auto tokens = d.tokens;
    tokens[4] = -2;
    s.observations.instructions.data = tokens.data();
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("negative token id") != std::string::npos);
  }
  SUBCASE("a final observation for a step that was not truncated") {
    auto s = d.segment();
    s.final_indices = {2};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("not truncated") != std::string::npos);
  }
  SUBCASE("bootstrap observations for fewer envs than the segment's") {
    auto s = d.segment();
    s.bootstrap_observations.state.shape = {2, 4};
    s.bootstrap_observations.images.shape = {2, 2, 2, 2, 3};
    s.bootstrap_observations.instructions.shape = {2, 5};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("'bootstrapObservations.state'") != std::string::npos);
  }
  SUBCASE("bootstrap observations without the segment's images") {
    auto s = d.segment();
    s.bootstrap_observations.images = {};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("'bootstrapObservations.images' rows do not match") !=
          std::string::npos);
  }
  SUBCASE("final observations with instructions of another length") {
    auto s = d.segment();
    s.final_observations.instructions.shape = {1, 4};
    auto out = read(build(s));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("'finalObservations.instructions'") != std::string::npos);
  }
  SUBCASE("data that does not match its shape") {
    capnp::MallocMessageBuilder b;
    auto root = b.initRoot<schema::TrajectorySegment>();
    auto t = root.initObservations().initState();
    t.setDtype(schema::DType::FLOAT32);
    auto shape = t.initShape(3);
    shape.set(0, 2);
    shape.set(1, 3);
    shape.set(2, 4);
    t.initData(200);
    auto flat = capnp::messageToFlatArray(b);
    auto out = read(frame_of<SegmentFrame>(flat.begin(), flat.size() * 8));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("holds 200 bytes, shape [2,3,4] needs 96") !=
          std::string::npos);
    t.initData(8);
    flat = capnp::messageToFlatArray(b);
    out = read(frame_of<SegmentFrame>(flat.begin(), flat.size() * 8));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("shape [2,3,4] larger than its 8 bytes") != std::string::npos);
  }
  SUBCASE("a shape whose element count overflows") {
    capnp::MallocMessageBuilder b;
    auto t = b.initRoot<schema::TrajectorySegment>().initObservations().initState();
    t.setDtype(schema::DType::FLOAT32);
    auto shape = t.initShape(4);
    for (unsigned i = 0; i < 4; ++i) shape.set(i, 0xFFFFFFFFu);
    t.initData(16);
    auto flat = capnp::messageToFlatArray(b);
    auto out = read(frame_of<SegmentFrame>(flat.begin(), flat.size() * 8));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("larger than its 16 bytes") != std::string::npos);
  }
  SUBCASE("a manifest that does not tile the flat buffer") {
    auto flat = iota<float>(5);
    WeightUpdate w;
    w.manifest = {{"a", {2}, 0}, {"b", {2}, 3}};
    w.flat = {flat.data(), {5}};
    auto out = read(build(w));
    REQUIRE_FALSE(out);
    CHECK(out.error().message().find("manifest entry 'b' starts at element 3, expected 2") !=
          std::string::npos);
  }
}

TEST_CASE("non-finite numbers are rejected") {
  std::vector<float> obs = {0.f, std::numeric_limits<float>::quiet_NaN(), 1.f, 2.f};
  auto out = read(build(ObservationBatch{0, 0, {{obs.data(), {1, 4}}, {}, {}}}));
  REQUIRE_FALSE(out);
  CHECK(out.error().message() ==
        "observation batch: field 'observations.state' holds a non-finite value at element 1");
  auto a = iota<float>(2), lp = iota<float>(2);
  std::vector<float> v = {1.f, std::numeric_limits<float>::infinity()};
  auto act =
      read(build(ActionBatch{0, 0, 0, {a.data(), {2, 1}}, {lp.data(), {2}}, {v.data(), {2}}}));
  REQUIRE_FALSE(act);
  CHECK(act.error().message().find("'values'") != std::string::npos);
}

TEST_CASE("copies of a frame share its bytes") {
  auto obs = iota<float>(4);
  auto a = build(ObservationBatch{0, 0, {{obs.data(), {1, 4}}, {}, {}}});
  auto b = a;
  CHECK(a.data() == b.data());
  CHECK(a.bytes().use_count() == 2);
}
