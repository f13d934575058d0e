// Actors locally: frames travel without copies; malformed frames are refused with a clear error
// and the receiving actor keeps serving.
#include "doctest_with_torch.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include <dvla/actors/distribution/distributor.hpp>
#include <dvla/actors/inference/inference.hpp>
#include <dvla/actors/learning/trainer.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/envs/cartpole.hpp>
#include <dvla/gpu/host_pool.hpp>
#include <dvla/gpu/pool_lease.hpp>
#include <dvla/messages/all.hpp>
#include <dvla/runtime/distribution/chunked_version.hpp>
#include <dvla/runtime/learners/builtin_algorithms.hpp>
#include <dvla/runtime/policies/actor_critic.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

using namespace dvla;
using namespace dvla::actors;

namespace {

struct System {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  System() {
    register_types(config);
    config.set("scheduler.max-threads", size_t{2});
    system = std::make_unique<caf::actor_system>(config);
  }
};

const caf::duration wait{std::chrono::seconds(30)};

envs::EnvSpec cartpole_spec() { return envs::CartPole().spec(); }

std::function<std::shared_ptr<Policy>()> tiny_policy() {
  return [] { return make_actor_critic(cartpole_spec(), {8}, 1); };
}

// A policy whose weights take tens of KB: many 1 KiB chunks.
std::function<std::shared_ptr<Policy>()> wide_policy() {
  return [] { return make_actor_critic(cartpole_spec(), {64, 64}, 1); };
}

// Waits (bounded: a test's safety net) until `replica` swapped in a staged version.
bool swapped(DoubleBufferedReplica& replica) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!replica.swap_in_staged())
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return true;
}

// Another node's distributor, feeding `far`.
distributor_actor spawn_far_distributor(System& s, std::shared_ptr<DoubleBufferedReplica> far) {
  DistributorSetup down;
  down.name = "far/distributor";
  down.replicas = {std::move(far)};
  return spawn_distributor(*s.system, down);
}

inference_actor spawn_cartpole_inference(System& s,
                                         std::shared_ptr<DoubleBufferedReplica> weights = nullptr) {
  InferenceSetup setup;
  setup.spec = cartpole_spec();
  setup.weights = weights ? weights
                          : std::make_shared<DoubleBufferedReplica>("inference", tiny_policy(),
                                                                    msg::WeightsFrame());
  return spawn_inference(*s.system, setup);
}

msg::ObservationFrame observations(int envs, int width = 4) {
  std::vector<float> obs(static_cast<size_t>(envs * width), 0.01f);
  return msg::build(msg::ObservationBatch{2, 5, {{obs.data(), {envs, width}}, {}, {}}});
}

// Sends `request` and returns the answer or the error's description.
template <class Answer, class Handle, class... Ts>
std::pair<std::optional<Answer>, std::string> ask(caf::scoped_actor& self, const Handle& h,
                                                  Ts&&... xs) {
  std::pair<std::optional<Answer>, std::string> out;
  self->request(h, wait, std::forward<Ts>(xs)...)
      .receive([&](const Answer& a) { out.first = a; },
               [&](const caf::error& e) { out.second = describe(e); });
  return out;
}

// A weight chunk's answer: its version and whether the distributor holds that version whole.
struct ChunkAnswer {
  uint64_t version = 0;
  bool whole = false;
};

std::pair<std::optional<ChunkAnswer>, std::string> send_chunk(caf::scoped_actor& self,
                                                              const distributor_actor& to,
                                                              const msg::WeightChunkFrame& chunk) {
  std::pair<std::optional<ChunkAnswer>, std::string> out;
  self->request(to, wait, chunk)
      .receive([&](uint64_t version, bool whole) { out.first = ChunkAnswer{version, whole}; },
               [&](const caf::error& e) { out.second = describe(e); });
  return out;
}

}  // namespace

TEST_CASE("a local send delivers the sender's buffer: the same bytes, not a copy") {
  System s;
  // The receiver answers with the address of the bytes it was given.
  auto receiver = s.system->spawn([]() -> caf::behavior {
    return {[](const msg::ObservationFrame& f) { return reinterpret_cast<uint64_t>(f.data()); }};
  });
  caf::scoped_actor self{*s.system};
  std::vector<float> big(1 << 16, 1.f);
  auto frame = msg::build(msg::ObservationBatch{0, 0, {{big.data(), {1, 1 << 16}}, {}, {}}});
  const auto sent = reinterpret_cast<uint64_t>(frame.data());
  auto [answer, error] = ask<uint64_t>(self, receiver, frame);
  REQUIRE(answer);
  CHECK(*answer == sent);
  self->send_exit(receiver, caf::exit_reason::user_shutdown);
}

TEST_CASE("inference refuses malformed and mismatched frames, then keeps serving") {
  System s;
  auto inference = spawn_cartpole_inference(s);
  caf::scoped_actor self{*s.system};

  std::vector<uint64_t> garbage(16, 0xdeadbeefcafef00dULL);
  auto [a1, e1] = ask<msg::ActionFrame>(
      self, inference, msg::ObservationFrame(msg::Bytes::copy_of(garbage.data(), 128)));
  CHECK_FALSE(a1);
  CHECK(e1.find("malformed_message: observation batch: not a valid Cap'n Proto message") == 0);

  auto valid = observations(3);
  auto [a2, e2] = ask<msg::ActionFrame>(
      self, inference, msg::ObservationFrame(msg::Bytes::copy_of(valid.data(), valid.size() / 2)));
  CHECK_FALSE(a2);
  CHECK(e2.find("malformed_message") == 0);

  auto [a3, e3] = ask<msg::ActionFrame>(self, inference, observations(3, 5));
  CHECK_FALSE(a3);
  CHECK(e3 == "incompatible_message: observations of shape [5] per env, this policy takes [4]");

  auto [a4, e4] = ask<msg::ActionFrame>(self, inference, observations(3));
  REQUIRE(a4);
  auto actions = msg::read(*a4);
  REQUIRE(actions);
  CHECK(actions->sampler_id == 2);
  CHECK(actions->sequence == 5);
  CHECK(actions->policy_version == 0);
  CHECK(actions->actions.shape == std::vector<int64_t>{3, 1});
  self->send_exit(inference, caf::exit_reason::user_shutdown);
}

TEST_CASE("staged weights stay out of the active policy until the swap, then act whole") {
  auto weights =
      std::make_shared<DoubleBufferedReplica>("replica", tiny_policy(), msg::WeightsFrame());
  auto source = make_actor_critic(cartpole_spec(), {8}, 99);
  FlatParameters flat(*source);
  const auto input = PolicyInput{torch::full({3, 4}, 0.2f), {}, {}};
  auto values = [&](Policy& p) {
    torch::NoGradGuard no_grad;
    return p.value(input);
  };
  const auto before = values(weights->active());
  REQUIRE_FALSE(torch::allclose(before, values(*source)));

  auto update = msg::read(flat.to_frame(7));
  REQUIRE(update);
  auto staged = weights->stage(*update);
  REQUIRE(staged);
  CHECK(*staged == 7);
  CHECK(weights->active_version() == 0);
  CHECK(torch::equal(values(weights->active()), before));  // staging is not active

  CHECK(weights->swap_in_staged());
  CHECK(weights->active_version() == 7);
  // Every parameter view of the active policy sees the new buffer: no stale slice.
  CHECK(torch::equal(values(weights->active()), values(*source)));
  CHECK_FALSE(weights->swap_in_staged());  // nothing new staged
  CHECK(weights->active_version() == 7);

  auto foreign = make_actor_critic(cartpole_spec(), {16}, 1);
  FlatParameters foreign_flat(*foreign);
  auto misfit = weights->stage(*msg::read(foreign_flat.to_frame(8)));
  REQUIRE_FALSE(misfit);
  CHECK(misfit.error().message().find("weight update does not fit this policy") == 0);
}

TEST_CASE("a replica given no initial weights never acts with none, even while newer ones copy") {
  // A node's replica starts empty: the first version is staged, then newer ones are copied over
  // it. Before the fix the first swap gave up while a copy was in progress and inference acted
  // with the factory's random weights (a rejoined node's first segment was version 0).
  const auto large = [] { return make_actor_critic(cartpole_spec(), {1024, 1024}, 1); };
  auto source = large();
  FlatParameters flat(*source);
  const auto frame = flat.to_frame(1);
  const auto update = msg::read(frame);  // staged back to back: the copy is nearly always running
  REQUIRE(update);
  for (int attempt = 0; attempt < 5; ++attempt) {
    DoubleBufferedReplica replica("replica", large, msg::WeightsFrame());
    std::atomic<bool> first_staged{false}, stop{false};
    std::thread distributor([&] {
      while (!stop && replica.stage(*update)) first_staged = true;
    });
    while (!first_staged) std::this_thread::yield();
    replica.swap_in_staged();  // the first batch boundary after the node was given weights
    const uint64_t acting = replica.active_version();
    stop = true;
    distributor.join();
    CHECK(acting >= 1);
  }
}

TEST_CASE("a replica's two flat buffers come from the model pool and go back with it") {
  auto pool = std::make_shared<gpu::HostPool>("model", 1 << 20);
  auto policy = tiny_policy()();
  const auto bytes = static_cast<size_t>(FlatParameters(*policy).size()) * sizeof(float);
  {
    auto lease = std::make_shared<gpu::PoolLease>(pool, "inference/0");
    DoubleBufferedReplica replica("inference/0", tiny_policy(), msg::WeightsFrame(), lease);
    CHECK(pool->stats().in_use == 2 * bytes);
    auto source = make_actor_critic(cartpole_spec(), {8}, 99);
    REQUIRE(replica.stage(*msg::read(FlatParameters(*source).to_frame(3))));
    CHECK(replica.swap_in_staged());
    CHECK(replica.active_version() == 3);
    CHECK(pool->stats().in_use == 2 * bytes);  // a swap moves no memory
  }
  CHECK(pool->stats().in_use == 0);
  // Too small a pool: refused by name, not an abort.
  auto tiny = std::make_shared<gpu::HostPool>("model", 64 << 10);
  auto wide = [] { return make_actor_critic(cartpole_spec(), {256, 256}, 1); };  // ~1 MiB
  CHECK_THROWS_WITH_AS(
      DoubleBufferedReplica("inference/1", wide, msg::WeightsFrame(),
                            std::make_shared<gpu::PoolLease>(tiny, "inference/1")),
      doctest::Contains("weight buffer: inference/1: pool 'model' cannot allocate"),
      std::runtime_error);
}

TEST_CASE(
    "the distributor stages weights for inference, which acts with them from its next batch") {
  System s;
  auto weights =
      std::make_shared<DoubleBufferedReplica>("inference/0", tiny_policy(), msg::WeightsFrame());
  auto inference = spawn_cartpole_inference(s, weights);
  DistributorSetup d;
  d.replicas = {weights};
  auto distributor = spawn_distributor(*s.system, d);
  caf::scoped_actor self{*s.system};

  auto policy = make_actor_critic(cartpole_spec(), {8}, 99);
  FlatParameters flat(*policy);
  auto [ack, e1] = ask<uint64_t>(self, distributor, flat.to_frame(7));
  REQUIRE(ack);
  CHECK(*ack == 7);
  auto [a, e2] = ask<msg::ActionFrame>(self, inference, observations(2));
  REQUIRE(a);
  CHECK(msg::read(*a)->policy_version == 7);

  // Weights of another policy, and damaged bytes, are refused with the reason; nothing changes.
  auto foreign = make_actor_critic(cartpole_spec(), {16}, 1);
  FlatParameters foreign_flat(*foreign);
  auto [ack2, e3] = ask<uint64_t>(self, distributor, foreign_flat.to_frame(8));
  CHECK_FALSE(ack2);
  CHECK(e3.find("incompatible_message: weight update does not fit this policy") == 0);
  const auto frame = flat.to_frame(9);
  auto [ack3, e4] = ask<uint64_t>(
      self, distributor, msg::WeightsFrame(msg::Bytes::copy_of(frame.data(), frame.size() / 2)));
  CHECK_FALSE(ack3);
  CHECK(e4.find("malformed_message") == 0);
  auto [a2, e5] = ask<msg::ActionFrame>(self, inference, observations(2));
  REQUIRE(a2);
  CHECK(msg::read(*a2)->policy_version == 7);
  self->send_exit(inference, caf::exit_reason::user_shutdown);
  self->send_exit(distributor, caf::exit_reason::user_shutdown);
}

TEST_CASE(
    "a distributor attached downstream gets the latest weights first, then every update, in "
    "chunks") {
  System s;
  // The upstream one feeds a replica of its own; the downstream one (another node's) another.
  auto local =
      std::make_shared<DoubleBufferedReplica>("inference/0", wide_policy(), msg::WeightsFrame());
  auto far = std::make_shared<DoubleBufferedReplica>("far/0", wide_policy(), msg::WeightsFrame());
  DistributorSetup up;
  up.replicas = {local};
  up.chunk_bytes = 1024;  // dozens of chunks a version, two in flight
  up.chunks_in_flight = 2;
  auto upstream = spawn_distributor(*s.system, up);
  auto downstream = spawn_far_distributor(s, far);
  caf::scoped_actor self{*s.system};
  auto policy = wide_policy()();
  FlatParameters flat(*policy);
  REQUIRE(flat.to_frame(0).size() > 16 * 1024);
  // Version 0, the learner's first (a downstream that has nothing yet still wants it).
  REQUIRE(ask<uint64_t>(self, upstream, flat.to_frame(0)).first == 0u);
  // Attaching hands over version 0 and is answered once the downstream has it.
  auto [attached, e1] = ask<uint64_t>(self, upstream, attach_atom::value, std::string("far"),
                                      caf::actor_cast<caf::actor>(downstream));
  REQUIRE_MESSAGE(attached, e1);
  CHECK(*attached == 0);
  CHECK(far->swap_in_staged());
  CHECK(far->active_version() == 0);
  // The next update is answered once the local replica has it (a remote hop must not hold up the
  // learner); the downstream gets it right after.
  REQUIRE(ask<uint64_t>(self, upstream, flat.to_frame(4)).first == 4u);
  CHECK(local->swap_in_staged());
  CHECK(local->active_version() == 4);
  CHECK(swapped(*far));
  CHECK(far->active_version() == 4);
  // A downstream that ends (a lost node) leaves: updates go on without it.
  self->send_exit(downstream, caf::exit_reason::kill);
  self->wait_for(downstream);
  auto [after, e2] = ask<uint64_t>(self, upstream, flat.to_frame(5));
  CHECK_MESSAGE(after == 5u, e2);
  CHECK(local->swap_in_staged());
  CHECK(local->active_version() == 5);
  self->send_exit(upstream, caf::exit_reason::user_shutdown);
}

TEST_CASE(
    "a distributor takes weights only as they may come: versions never go back, a first chunk "
    "claiming another size is refused before anything is allocated, chunks only from its relay "
    "parent's process") {
  System s;
  auto far = std::make_shared<DoubleBufferedReplica>("far/0", wide_policy(), msg::WeightsFrame());
  FlatParameters flat(*wide_policy()());
  DistributorSetup setup;
  setup.name = "far/distributor";
  setup.replicas = {far};
  setup.version_bytes = flat.to_frame(0).size();
  auto distributor = spawn_distributor(*s.system, setup);
  caf::scoped_actor self{*s.system};
  REQUIRE(ask<uint64_t>(self, distributor, flat.to_frame(3)).first == 3u);
  REQUIRE(swapped(*far));
  // An older version is refused; the one it holds is answered as held, neither is staged.
  auto [older, why_older] = ask<uint64_t>(self, distributor, flat.to_frame(2));
  CHECK(!older);
  CHECK_MESSAGE(why_older.find("older than the version it holds, 3") != std::string::npos,
                why_older);
  CHECK(ask<uint64_t>(self, distributor, flat.to_frame(3)).first == 3u);
  CHECK(!far->swap_in_staged());
  // A first chunk that claims 2^40 bytes.
  const auto v5 = cut_into_chunks(flat.to_frame(5), 5, 1024);
  auto first = msg::read(v5.chunks.front());
  REQUIRE(first);
  first->total_bytes = uint64_t{1} << 40;
  first->count = static_cast<uint32_t>((first->total_bytes + first->size - 1) / first->size);
  auto [huge, why_huge] = send_chunk(self, distributor, msg::build(*first));
  CHECK(!huge);
  CHECK_MESSAGE(why_huge.find("claims 1099511627776 bytes; a version of this policy is " +
                              std::to_string(setup.version_bytes)) != std::string::npos,
                why_huge);
  // With a relay parent in another process, this process's chunks are refused too.
  caf::node_id::default_data::host_id_type host{};
  host.fill(7);
  self->send(distributor, parent_atom::value, caf::make_node_id(4242, host));
  auto [foreign, why_foreign] = send_chunk(self, distributor, v5.chunks.front());
  CHECK(!foreign);
  CHECK_MESSAGE(why_foreign.find("only its relay parent sends it weights") != std::string::npos,
                why_foreign);
  CHECK(!far->swap_in_staged());
  CHECK(far->active_version() == 3);
  self->send_exit(distributor, caf::exit_reason::user_shutdown);
}

// A policy's parameters back to back, in FlatParameters' order.
at::Tensor weights_of(Policy& policy) {
  std::vector<at::Tensor> all;
  for (const auto& p : policy.parameters()) all.push_back(p.detach().reshape(-1));
  return at::cat(all);
}

TEST_CASE("with a bfloat16 wire every replica, local and downstream, acts with the same rounded "
          "version, which crossed in half the bytes") {
  System s;
  auto local =
      std::make_shared<DoubleBufferedReplica>("inference/0", wide_policy(), msg::WeightsFrame());
  auto far = std::make_shared<DoubleBufferedReplica>("far/0", wide_policy(), msg::WeightsFrame());
  caf::scoped_actor reports{*s.system};  // the upstream's delivery reports
  DistributorSetup up;
  up.replicas = {local};
  up.chunk_bytes = 1024;
  up.wire_precision = msg::WeightPrecision::bfloat16;
  up.supervisor = caf::actor_cast<caf::actor>(reports);
  auto upstream = spawn_distributor(*s.system, up);
  auto downstream = spawn_far_distributor(s, far);
  caf::scoped_actor self{*s.system};
  auto policy = wide_policy()();
  FlatParameters flat(*policy);
  const auto frame = flat.to_frame(2);
  REQUIRE(ask<uint64_t>(self, upstream, frame).first == 2u);
  auto [attached, e1] = ask<uint64_t>(self, upstream, attach_atom::value, std::string("far"),
                                      caf::actor_cast<caf::actor>(downstream));
  REQUIRE_MESSAGE(attached, e1);
  CHECK(local->swap_in_staged());
  CHECK(swapped(*far));
  // LibTorch's own float32 -> bfloat16 rounding (to nearest even) gives the same weights.
  const auto rounded = flat.flat().to(at::kBFloat16).to(at::kFloat);
  CHECK(at::equal(weights_of(local->active()), rounded));
  CHECK(at::equal(weights_of(far->active()), rounded));
  CHECK_FALSE(at::equal(rounded, flat.flat()));  // the test's weights do lose digits
  CHECK(at::allclose(rounded, flat.flat(), 1.0 / 256, 0));
  uint64_t crossed = 0;
  reports->receive(
      [&](delivered_atom, const std::string&, uint64_t, uint64_t bytes) { crossed = bytes; },
      caf::after(std::chrono::seconds(30)) >> [] {});
  CHECK(crossed > 0);
  CHECK(crossed * 10 < frame.size() * 6);  // about half: the manifest does not shrink
  self->send_exit(upstream, caf::exit_reason::user_shutdown);
  self->send_exit(downstream, caf::exit_reason::user_shutdown);
}

TEST_CASE("host replicas of a node act with one shared copy of a version, which a later copy "
          "never writes into") {
  System s;
  auto a = std::make_shared<DoubleBufferedReplica>("inference/0", wide_policy(),
                                                   msg::WeightsFrame());
  auto b = std::make_shared<DoubleBufferedReplica>("inference/1", wide_policy(),
                                                   msg::WeightsFrame());
  DistributorSetup d;
  d.replicas = {a, b};
  auto distributor = spawn_distributor(*s.system, d);
  caf::scoped_actor self{*s.system};
  auto policy = wide_policy()();
  FlatParameters flat(*policy);
  const auto v7 = flat.to_frame(7);
  const std::vector<std::byte> v7_bytes(v7.data(), v7.data() + v7.size());
  REQUIRE(ask<uint64_t>(self, distributor, v7).first == 7u);
  REQUIRE(a->swap_in_staged());
  REQUIRE(b->swap_in_staged());
  // One buffer for both: the parameters of each are views into the same bytes.
  CHECK(a->active().parameters()[0].data_ptr() == b->active().parameters()[0].data_ptr());
  CHECK(at::equal(weights_of(a->active()), flat.flat()));
  CHECK(at::equal(weights_of(b->active()), flat.flat()));
  // v8 shared into the other buffer; then v9 (other weights) copied into the one that views v7.
  REQUIRE(ask<uint64_t>(self, distributor, flat.to_frame(8)).first == 8u);
  REQUIRE(a->swap_in_staged());
  auto other = make_actor_critic(cartpole_spec(), {64, 64}, 42);
  FlatParameters other_flat(*other);
  const auto v9 = other_flat.to_frame(9);
  REQUIRE(a->stage(*msg::read(v9)));
  REQUIRE(a->swap_in_staged());
  CHECK(a->active_version() == 9);
  CHECK(at::equal(weights_of(a->active()), other_flat.flat()));
  CHECK(std::equal(v7_bytes.begin(), v7_bytes.end(), v7.data()));  // v7 as it was sent
  CHECK(at::equal(weights_of(b->active()), flat.flat()));           // b still acts with v7
  self->send_exit(distributor, caf::exit_reason::user_shutdown);
}

TEST_CASE("a distributor attached before there are weights is answered with the first update") {
  System s;
  auto far = std::make_shared<DoubleBufferedReplica>("far/0", tiny_policy(), msg::WeightsFrame());
  auto upstream = spawn_distributor(*s.system, DistributorSetup{});
  auto downstream = spawn_far_distributor(s, far);
  caf::scoped_actor node{*s.system}, learner{*s.system};
  auto attaching = node->request(upstream, std::chrono::seconds(30), attach_atom::value,
                                 std::string("far"), caf::actor_cast<caf::actor>(downstream));
  auto policy = make_actor_critic(cartpole_spec(), {8}, 99);
  FlatParameters flat(*policy);
  // The first update has a downstream to feed (the upstream has no replica of its own).
  REQUIRE(ask<uint64_t>(learner, upstream, flat.to_frame(7)).first == 7u);
  uint64_t attached = 0;
  attaching.receive([&](uint64_t v) { attached = v; },
                    [&](const caf::error& e) { FAIL(actors::describe(e)); });
  CHECK(attached == 7);
  CHECK(far->swap_in_staged());
  CHECK(far->active_version() == 7);
  learner->send_exit(upstream, caf::exit_reason::user_shutdown);
  learner->send_exit(downstream, caf::exit_reason::user_shutdown);
}

TEST_CASE("a relay's child, attached to the relay's parent once the relay is lost, gets the next "
          "version") {
  System s;
  // learner -> relay -> child, each distributor with a replica of its own.
  auto at_relay = std::make_shared<DoubleBufferedReplica>("relay/0", wide_policy(),
                                                          msg::WeightsFrame());
  auto at_child = std::make_shared<DoubleBufferedReplica>("child/0", wide_policy(),
                                                          msg::WeightsFrame());
  DistributorSetup setup;
  setup.chunk_bytes = 1024;
  setup.replicas = {std::make_shared<DoubleBufferedReplica>("inference/0", wide_policy(),
                                                            msg::WeightsFrame())};
  auto learner = spawn_distributor(*s.system, setup);
  setup.name = "relay/distributor";
  setup.replicas = {at_relay};
  auto relay = spawn_distributor(*s.system, setup);
  setup.name = "child/distributor";
  setup.replicas = {at_child};
  auto child = spawn_distributor(*s.system, setup);
  caf::scoped_actor self{*s.system};
  FlatParameters flat(*wide_policy()());
  REQUIRE(ask<uint64_t>(self, learner, flat.to_frame(1)).first == 1u);
  auto attach = [&](const distributor_actor& to, const std::string& name,
                    const distributor_actor& from) {
    return ask<uint64_t>(self, to, attach_atom::value, name, caf::actor_cast<caf::actor>(from));
  };
  REQUIRE(attach(learner, "relay", relay).first == 1u);
  REQUIRE(attach(relay, "child", child).first == 1u);  // relayed chunk by chunk
  // The relay is lost (a killed node); its child is routed around it to the learner.
  self->send_exit(relay, caf::exit_reason::kill);
  self->wait_for(relay);
  auto [again, why] = attach(learner, "child", child);
  REQUIRE_MESSAGE(again, why);
  CHECK(*again == 1);  // it had version 1: answered at once, nothing staged twice
  REQUIRE(swapped(*at_child));
  CHECK(at_child->active_version() == 1);
  CHECK_FALSE(at_child->swap_in_staged());
  REQUIRE(ask<uint64_t>(self, learner, flat.to_frame(2)).first == 2u);
  CHECK(swapped(*at_child));
  CHECK(at_child->active_version() == 2);
  self->send_exit(learner, caf::exit_reason::user_shutdown);
  self->send_exit(child, caf::exit_reason::user_shutdown);
}

TEST_CASE("a damaged or truncated chunk stream is refused and the replica keeps its version") {
  System s;
  auto far = std::make_shared<DoubleBufferedReplica>("far/0", wide_policy(), msg::WeightsFrame());
  auto downstream = spawn_far_distributor(s, far);
  caf::scoped_actor self{*s.system};
  auto source = wide_policy()();
  FlatParameters flat(*source);
  // Sends every chunk of `v` in order; the version once whole (or the first error).
  auto send_all = [&](const ChunkedVersion& v) {
    std::pair<std::optional<uint64_t>, std::string> answer;
    for (const auto& chunk : v.chunks) {
      auto [ack, why] = send_chunk(self, downstream, chunk);
      answer.second = why;
      if (!ack) break;
      if (ack->whole) answer.first = ack->version;
    }
    return answer;
  };
  REQUIRE(send_all(cut_into_chunks(flat.to_frame(3), 3, 1024)).first == 3u);
  REQUIRE(far->swap_in_staged());
  REQUIRE(far->active_version() == 3);

  SUBCASE("held already: a new upstream's first chunk of it is answered whole at once") {
    auto again = send_chunk(self, downstream, cut_into_chunks(flat.to_frame(3), 3, 1024).chunks[0]);
    REQUIRE_MESSAGE(again.first, again.second);
    CHECK(again.first->version == 3);
    CHECK(again.first->whole);
    CHECK_FALSE(far->swap_in_staged());  // nothing staged again
  }

  SUBCASE("damaged: one flipped byte in one chunk") {
    auto v = cut_into_chunks(flat.to_frame(4), 4, 1024);
    auto c = *msg::read(v.chunks[5]);
    std::vector<std::byte> data(c.data, c.data + c.size);
    data[7] ^= std::byte{1};
    c.data = data.data();
    v.chunks[5] = msg::build(c);
    auto [ack, why] = send_all(v);
    CHECK_FALSE(ack);
    CHECK_MESSAGE(why.find("malformed_message: weight transfer of version 4 discarded: checksum") ==
                      0,
                  why);
    CHECK_FALSE(far->swap_in_staged());
    CHECK(far->active_version() == 3);
  }
  SUBCASE("truncated: the rest never comes, the next version's first chunk supersedes it") {
    auto v4 = cut_into_chunks(flat.to_frame(4), 4, 1024);
    for (size_t i = 0; i + 1 < v4.chunks.size(); ++i) {
      auto [ack, why] = send_chunk(self, downstream, v4.chunks[i]);
      REQUIRE_MESSAGE(ack, why);
      CHECK(ack->version == 4);
      CHECK_FALSE(ack->whole);
    }
    CHECK_FALSE(far->swap_in_staged());  // nothing staged from a partial version
    CHECK(far->active_version() == 3);
    REQUIRE(send_all(cut_into_chunks(flat.to_frame(5), 5, 1024)).first == 5u);
    CHECK(far->swap_in_staged());
    CHECK(far->active_version() == 5);
  }
  self->send_exit(downstream, caf::exit_reason::user_shutdown);
}

TEST_CASE("the trainer refuses a malformed segment and keeps serving") {
  System s;
  TrainerSetup setup;
  setup.spec = cartpole_spec();
  setup.make_policy = tiny_policy();
  setup.algorithm = make_ppo_algorithm(setup.config);
  auto trainer = spawn_trainer(*s.system, setup);
  caf::scoped_actor self{*s.system};

  std::vector<uint64_t> garbage(32, 0x0123456789abcdefULL);
  auto [v1, e1] =
      ask<uint64_t>(self, trainer, msg::SegmentFrame(msg::Bytes::copy_of(garbage.data(), 256)));
  CHECK_FALSE(v1);
  CHECK(e1.find("malformed_message: trajectory segment") == 0);

  auto [w, e2] = ask<msg::WeightsFrame>(self, trainer, weights_atom::value);
  REQUIRE(w);
  auto update = msg::read(*w);
  REQUIRE(update);
  CHECK(update->version == 0);
  self->send_exit(trainer, caf::exit_reason::user_shutdown);
}
