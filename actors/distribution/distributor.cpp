#include <dvla/actors/distribution/distributor.hpp>

#include <caf/all.hpp>

#include <map>
#include <optional>
#include <memory>
#include <utility>
#include <vector>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/sender_check.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/distribution/chunked_version.hpp>
#include <dvla/runtime/distribution/uplink_budget.hpp>
#include <dvla/runtime/distribution/weight_assembly.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/weights/double_buffered_replica.hpp>

namespace dvla::actors {
namespace {

// A distributor attached downstream (another node's). Remote hops have no backpressure of their
// own: each downstream has at most `chunks_in_flight` chunks unacknowledged. A version it is
// being sent is finished (the newest version is sent next: versions that came meanwhile are
// skipped), unless that version will never be whole here (a relay lost the rest of it).
struct Downstream {
  std::string name;
  distributor_actor actor;
  std::shared_ptr<const ChunkedVersion> sending;  // null: between versions
  uint32_t next_chunk = 0;                        // of `sending`
  int in_flight = 0;                              // chunks sent, not yet acknowledged
  std::optional<uint64_t> has_version;      // the last version it acknowledged whole
  std::optional<uint64_t> refused_version;  // the last version it refused (not resent)
  std::vector<caf::typed_response_promise<uint64_t>> attached;  // answered with its first weights
};

struct DistributorState {
  DistributorSetup setup;
  std::map<caf::actor_addr, Downstream> downstream;
  msg::WeightsFrame latest;  // the newest whole version here
  uint64_t latest_version = 0;
  // The newest version as chunks, for the downstream: cut from `latest` where updates come whole
  // (the learner's distributor), or growing as chunks arrive (a node's); null until needed.
  std::shared_ptr<ChunkedVersion> current;
  WeightAssembly assembly;  // the version arriving in chunks
  UplinkBudget uplink;      // distribution.uplink_mib_s over every downstream
  bool pump_due = false;    // a (pump) is on its way: the uplink held chunks back
  caf::actor_addr served;   // the downstream pumped last: the next pump starts after it
  // The process of the distributor it takes its weights from (set by its node, locally): chunks
  // from any other are refused. None: weights come from this process only.
  caf::node_id parent;
};

using self_ptr = distributor_actor::stateful_pointer<DistributorState>;

// Stages `update` (read from `frame`) into every local replica; host replicas share the frame
// itself, read-only, so the fan-out copies nothing. The error says why one refused it.
caf::error stage_locally(DistributorState& s, const msg::WeightsFrame& frame,
                         const msg::WeightUpdate& update) {
  for (const auto& replica : s.setup.replicas) {
    ScopedWork work(s.setup.track.get(), "stage_weights");
    if (auto staged = replica->stage(frame, update); !staged)
      return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message,
                    staged.error().message());
  }
  return {};
}

// A downstream that did not answer (its node is gone or hangs: the supervisor deals with the
// node) leaves; the run goes on without it.
void drop(self_ptr self, const caf::actor_addr& address, const caf::error& why) {
  auto& s = self->state;
  auto it = s.downstream.find(address);
  if (it == s.downstream.end()) return;
  auto error = make_error(errc::no_answer, "distributor '" + it->second.name +
                                               "' did not take the weights: " + describe(why));
  for (auto& a : it->second.attached) a.deliver(error);
  self->demonitor(address);
  s.downstream.erase(it);
}

// The newest version as chunks: cut from the latest whole one when that is newer.
const std::shared_ptr<ChunkedVersion>& current_chunks(DistributorState& s) {
  if (!s.latest.empty() && (!s.current || s.current->version < s.latest_version))
    s.current = std::make_shared<ChunkedVersion>(
        cut_into_chunks(s.latest, s.latest_version, s.setup.chunk_bytes));
  return s.current;
}

void pump(self_ptr self, Downstream& d);

// One chunk of `d.sending` acknowledged (`whole`: the downstream holds its version whole), or
// refused, or not answered.
void on_chunk_answer(self_ptr self, const caf::actor_addr& address,
                     const std::shared_ptr<const ChunkedVersion>& version, uint32_t index,
                     bool whole, const caf::error& error) {
  auto& s = self->state;
  auto it = s.downstream.find(address);
  if (it == s.downstream.end()) return;
  auto& d = it->second;
  --d.in_flight;
  if (error) {
    // A refusal (damaged in transit, a policy that does not fit) costs that version only; a
    // downstream that does not answer is gone.
    if (error.category() != caf::atom("dvla") ||
        error.code() == static_cast<uint8_t>(errc::no_answer))
      return drop(self, address, error);
    d.refused_version = std::max(d.refused_version.value_or(0), version->version);
    if (d.sending == version) d.sending = nullptr;
  } else if (whole && !(d.has_version >= version->version)) {
    d.has_version = version->version;
    if (d.sending == version) d.sending = nullptr;  // the rest (if any) it has already
    for (auto& a : std::exchange(d.attached, {})) a.deliver(version->version);
    // Counted when it crossed: not when a downstream that had it already said so.
    if (s.setup.supervisor && index + 1 == version->count)
      caf::anon_send(s.setup.supervisor, delivered_atom::value, d.name, version->version,
                     version->total_bytes);
  }
  pump(self, d);
}

// Sends `d` the chunks its credit allows: of the version it is being sent, or else the newest.
void pump(self_ptr self, Downstream& d) {
  auto& s = self->state;
  if (!d.sending) {
    const auto& newest = current_chunks(s);
    if (!newest || newest->version <= d.has_version || newest->version <= d.refused_version)
      return;
    d.sending = newest;
    d.next_chunk = 0;
  }
  const auto version = d.sending;
  const auto address = d.actor.address();
  while (d.in_flight < s.setup.chunks_in_flight && d.next_chunk < version->chunks.size()) {
    if (const double wait = s.uplink.take(version->chunks[d.next_chunk].size()); wait > 0) {
      if (!std::exchange(s.pump_due, true))
        self->delayed_send(self, std::chrono::duration_cast<caf::timespan>(
                                     std::chrono::duration<double>(wait)),
                           pump_atom::value);
      return;
    }
    s.served = address;
    const uint32_t index = d.next_chunk++;
    ++d.in_flight;
    self->request(d.actor, timeout_of(s.setup.timeout_s), version->chunks[index])
        .then(
            [self, address, version, index](uint64_t, bool whole) {
              on_chunk_answer(self, address, version, index, whole, caf::error());
            },
            [self, address, version, index](caf::error& e) {
              on_chunk_answer(self, address, version, index, false, e);
            });
  }
}

// Every downstream, starting after the one served last: under an uplink cap each gets its turn.
void pump_all(self_ptr self) {
  auto& all = self->state.downstream;
  const auto first = all.upper_bound(self->state.served);
  for (auto it = first; it != all.end(); ++it) pump(self, it->second);
  for (auto it = all.begin(); it != first; ++it) pump(self, it->second);
}

// A whole, checked version: staged into the local replicas and kept for the downstream.
caf::expected<uint64_t> take_whole(self_ptr self, const msg::WeightsFrame& frame) {
  auto& s = self->state;
  auto update = msg::read(frame);
  if (!update)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  update.error().message());
  // Versions only increase: the one held already (a restarted trainer publishes it again) is
  // answered as held, an older one refused; neither touches the replicas.
  if (!s.latest.empty() && update->version == s.latest_version) return update->version;
  if (!s.latest.empty() && update->version < s.latest_version)
    return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message,
                  "weights version " + std::to_string(update->version) +
                      " is older than the version it holds, " + std::to_string(s.latest_version) +
                      ": versions only increase");
  if (auto refused = stage_locally(s, frame, *update)) return refused;
  s.latest = frame;
  s.latest_version = update->version;
  return update->version;
}

// The learner's update in the wire's precision: as it is for float32 (no extra pass over it).
Expected<msg::WeightsFrame> wire_frame(const DistributorState& s, const msg::WeightsFrame& frame) {
  if (s.setup.wire_precision == msg::WeightPrecision::float32) return frame;
  return msg::with_precision(frame, s.setup.wire_precision);
}

// From the learner: answered once the local replicas have staged the update; downstream
// distributors get it as their credit allows (remote hops must not hold up the learner). With a
// bfloat16 wire the version is rounded here, once, and the local replicas stage the rounded one
// too: a version number means the same weights on every replica of the cluster.
caf::result<uint64_t> distribute(self_ptr self, const msg::WeightsFrame& frame) {
  auto& s = self->state;
  if (s.setup.replicas.empty() && s.downstream.empty())
    return make_error(errc::bad_setup, "no inference replica to feed");
  auto wire = wire_frame(s, frame);
  if (!wire)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  wire.error().message());
  auto taken = take_whole(self, *wire);
  pump_all(self);
  if (!taken) return std::move(taken.error());
  return *taken;
}

// A version arriving in chunks from upstream (this is a node's distributor, or a relay): each
// chunk is passed on downstream as it comes; once the last one is in and the whole checks out,
// the local replicas stage it and the answer says it is whole here. A version held already (a new
// upstream, after the old one was lost, starts with the newest it has) is answered whole at once.
caf::result<uint64_t, bool> receive_chunk(self_ptr self, const msg::WeightChunkFrame& frame) {
  auto& s = self->state;
  auto chunk = msg::read(frame);
  if (!chunk)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  chunk.error().message());
  if (!s.latest.empty() && chunk->version <= s.latest_version)
    return {chunk->version, true};
  if (const auto expected = s.setup.version_bytes;
      chunk->index == 0 && expected != 0 && chunk->total_bytes != expected)
    return refuse(s.setup.supervisor, s.setup.name, errc::incompatible_message,
                  "a weight transfer of version " + std::to_string(chunk->version) + " claims " +
                      std::to_string(chunk->total_bytes) + " bytes; a version of this policy is " +
                      std::to_string(expected));
  auto progress = s.assembly.add(*chunk);
  if (!progress)
    return refuse(s.setup.supervisor, s.setup.name, errc::malformed_message,
                  progress.error().message());
  if (progress->superseded)
    report_rejected(s.setup.supervisor, s.setup.name,
                    "weight transfer of version " + std::to_string(*progress->superseded) +
                        " superseded by version " + std::to_string(chunk->version) +
                        " before it was whole");
  // Pass it on: a relay's downstream gets chunk i while chunk i+1 is still on its way here.
  if (chunk->index == 0) {
    s.current = std::make_shared<ChunkedVersion>();
    s.current->version = chunk->version;
    s.current->count = chunk->count;
    s.current->total_bytes = chunk->total_bytes;
    // A downstream halfway through a version that will not be whole here moves to this one.
    for (auto& [address, d] : s.downstream)
      if (d.sending && !d.sending->complete()) d.sending = nullptr;
  }
  if (s.current && s.current->version == chunk->version) s.current->chunks.push_back(frame);
  pump_all(self);
  if (!progress->whole) return {chunk->version, false};
  auto taken = take_whole(self, *progress->whole);
  if (!taken) return std::move(taken.error());
  return {*taken, true};
}

// Another distributor joins downstream: it gets the newest weights first (the answer is their
// version, once it has them; before any weights, with the first update), then every update.
caf::result<uint64_t> attach(self_ptr self, const std::string& name, const caf::actor& actor) {
  auto& s = self->state;
  auto to = caf::actor_cast<distributor_actor>(actor);
  if (!to) return make_error(errc::bad_setup, "distributor '" + name + "' is not reachable");
  self->monitor(to);  // a downstream that ends (a lost node) leaves: see the down handler
  auto& d = s.downstream[to.address()];
  d.name = name;
  d.actor = to;
  auto promise = self->make_response_promise<uint64_t>();
  d.attached.push_back(promise);
  pump(self, d);
  return promise;
}

// A message that is not its sender's to send: refused and counted, the error as the answer.
caf::error not_yours(self_ptr self, const std::string& what) {
  return refuse(self->state.setup.supervisor, self->state.setup.name, errc::not_allowed,
                what + " from " + sender_text(self) + " refused: " +
                    (self->state.parent ? "only its relay parent sends it weights"
                                        : "it has no relay parent: only this process sends it "
                                          "weights"));
}

distributor_actor::behavior_type distributor(self_ptr self, DistributorSetup setup) {
  name_failures(self, setup.name);
  self->state.setup = std::move(setup);
  self->state.uplink = UplinkBudget(self->state.setup.uplink_bytes_per_s);
  apply_placement(self->state.setup.placement, self->state.setup.name);
  // A weight copy is bound by memory bandwidth: one thread, whatever the lanes around use.
  use_intra_op_threads(1);
  self->set_down_handler([self](caf::down_msg& down) { drop(self, down.source, down.reason); });
  return {
      [self](const msg::WeightsFrame& frame) -> caf::result<uint64_t> {
        if (!from_this_process(self)) return not_yours(self, "a whole weights version");
        return distribute(self, frame);
      },
      [self](const msg::WeightChunkFrame& frame) -> caf::result<uint64_t, bool> {
        const auto& parent = self->state.parent;
        if (parent ? !from_process_of(self, parent) : !from_this_process(self))
          return not_yours(self, "a weight chunk");
        return receive_chunk(self, frame);
      },
      // From anyone the coordinator sent here (through its relay door): a node's distributor.
      [self](attach_atom, const std::string& name, const caf::actor& downstream) {
        return attach(self, name, downstream);
      },
      [self](parent_atom, const caf::node_id& parent) {
        if (from_this_process(self)) self->state.parent = parent;
      },
      [self](pump_atom) {
        if (!from_this_process(self)) return;
        self->state.pump_due = false;
        pump_all(self);
      },
  };
}

}  // namespace

distributor_actor spawn_distributor(caf::actor_system& system, DistributorSetup setup) {
  if (setup.chunk_bytes == 0 || setup.chunks_in_flight < 1 || !(setup.uplink_bytes_per_s >= 0))
    throw Failure("distributor '" + setup.name + "': chunk size and chunks in flight must be positive, the uplink cap not negative");
  // Detached: weight transfers run on a thread of their own (lane 4), never on the scheduler.
  return system.spawn<caf::detached>(distributor, std::move(setup));
}

}  // namespace dvla::actors
