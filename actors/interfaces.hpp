#pragma once
// The typed interfaces of dvla's actors: which frames each one accepts and what it answers.
#include <caf/node_id.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <dvla/actors/atoms.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/cluster/node_info.hpp>
#include <dvla/runtime/cluster/peer_identity.hpp>
#include <dvla/runtime/cluster/weights_source.hpp>
#include <dvla/runtime/run/run_status.hpp>

namespace dvla::actors {

// Lane 2: answers observation batches with actions stamped with its policy version; swaps in
// weights the distributor staged (runtime/weights/double_buffered_replica.hpp) at batch boundaries.
using inference_actor =
    caf::typed_actor<caf::replies_to<msg::ObservationFrame>::with<msg::ActionFrame>,
                     caf::reacts_to<flush_atom>>;

// Lane 3: acknowledges each segment with its current version (a credit back to the sampler);
// trains once a batch is gathered and publishes the new weights. Saves checkpoints on request
// (given the run's env steps and episodes; answers the directory and the weights saved) and
// records their evaluations. (finished, sampler id): that sampler's final segment will not come
// (a stage dropped it), so lock-step rounds stop waiting for it.
using trainer_actor = caf::typed_actor<
    caf::replies_to<msg::SegmentFrame>::with<uint64_t>,
    caf::replies_to<weights_atom>::with<msg::WeightsFrame>,
    caf::replies_to<checkpoint_atom, uint64_t, uint64_t>::with<std::string, msg::WeightsFrame>,
    caf::reacts_to<evaluated_atom, std::string, double, double>,
    caf::reacts_to<finished_atom, uint32_t>, caf::reacts_to<start_atom>, caf::reacts_to<train_atom>,
    caf::reacts_to<step_atom>>;

// Beside the lanes: evaluates weights on the env's evaluation starts with deterministic actions
// and answers with the result as metrics. Its episodes never reach the trainer.
using evaluator_actor =
    caf::typed_actor<caf::replies_to<msg::WeightsFrame>::with<msg::MetricsFrame>>;

// Lane 4: copies one weight update into the staging buffer of every local inference replica and
// passes it on to every distributor attached downstream (other nodes'), as weight chunks; answers
// with its version once the local replicas have it. A weight chunk from upstream is acknowledged
// with (its version, whole) — the sender's credit; whole: this distributor holds that version whole
// (the last chunk checked out and the local replicas have it, or it had it before: a new upstream
// after a relay was lost sends nothing more of it). (attach, name, distributor): another
// distributor joins downstream — it gets
// the latest weights (the answer is their version, once it has them; before any weights, with the
// first update) and every update after; it leaves when it ends. (A typed handle cannot name its own
// type: the downstream travels as caf::actor and must be a distributor_actor.) (pump): its own
// timer, when distribution.uplink_mib_s held chunks back. (parent, process): its node says whose
// chunks it takes (its relay parent's); whole versions come only from this process's learner.
// Each sender is checked (actors/support/sender_check.hpp): a peer reaches it by its handle.
using distributor_actor =
    caf::typed_actor<caf::replies_to<msg::WeightsFrame>::with<uint64_t>,
                     caf::replies_to<msg::WeightChunkFrame>::with<uint64_t, bool>,
                     caf::replies_to<attach_atom, std::string, caf::actor>::with<uint64_t>,
                     caf::reacts_to<parent_atom, caf::node_id>, caf::reacts_to<pump_atom>>;

// A distributor's door on the weights plane, the one thing published there (the learner's, a
// relay node's): (attach, name, distributor) as the distributor's, nothing else.
using relay_door_actor =
    caf::typed_actor<caf::replies_to<attach_atom, std::string, caf::actor>::with<uint64_t>>;

// Where a sampler ships its segments: the trainer, or on a node of a multi-node run its uplink to
// the coordinator. Acknowledges each segment with the learner's version (the sampler's credit);
// (finished, sampler id): that sampler's final segment will not come.
using segment_sink_actor = caf::typed_actor<caf::replies_to<msg::SegmentFrame>::with<uint64_t>,
                                            caf::reacts_to<finished_atom, uint32_t>>;

// Lane 1: steps its envs with actions from inference, sends segments to the trainer. Takes
// pause and resume orders (from its control endpoint), answering with the request id.
// (replica, inference): its inference replica was restarted; ask this one from now on (what the
// lost one held is asked again). (trainer, sink): the trainer was restarted; ship to this one
// from now on (the segments the lost one did not acknowledge are shipped again). (replica) and
// (trainer): its own timers while it waits for those.
using sampler_actor =
    caf::typed_actor<caf::reacts_to<start_atom>, caf::replies_to<msg::ControlFrame>::with<uint64_t>,
                     caf::reacts_to<replica_atom, inference_actor>, caf::reacts_to<replica_atom>,
                     caf::reacts_to<trainer_atom, segment_sink_actor>,
                     caf::reacts_to<trainer_atom>>;

// Control plane: one data actor's endpoint (actors/control/control_endpoint.hpp). Answers a command
// with its request id and how long ago the data actor last worked (ns; -1: unknown). (replace,
// actor): the data actor was restarted; this is the one it stands for now.
using control_endpoint_actor =
    caf::typed_actor<caf::replies_to<msg::ControlFrame>::with<uint64_t, int64_t>,
                     caf::reacts_to<replace_atom, caf::actor>>;

// A lane actor's control endpoint, as the control plane addresses it.
struct EndpointRef {
  std::string name;  // the lane actor's
  control_endpoint_actor handle;
  bool takes_orders = false;  // pause and resume (samplers)
  std::string node;           // the node it is on, in a multi-node run; empty: this process
};

// The control plane of a run (actors/control/control_plane.hpp): a command (ping, pause, resume)
// to every control endpoint it concerns, answered with its request id once all acknowledged; a
// ping round every control.ping_interval_s (ping_atom), its round trip sent to the supervisor.
// (join, endpoints): a node's endpoints join; (lost, node): that node's leave.
using control_plane_actor =
    caf::typed_actor<caf::replies_to<msg::ControlFrame>::with<uint64_t>, caf::reacts_to<ping_atom>,
                     caf::reacts_to<join_atom, std::vector<EndpointRef>>,
                     caf::reacts_to<lost_atom, std::string>>;

// The supervisor of a run (actors/control/supervisor.hpp): gathers every actor's reports into
// the run's status, passes them on to the observers, has checkpoints and evaluations taken on
// schedule, and takes control commands from outside the graph. (finished, sampler id): that
// sampler spent its budget.
using supervisor_actor = caf::typed_actor<
    caf::reacts_to<msg::MetricsFrame>, caf::reacts_to<msg::VersionFrame>,
    caf::reacts_to<finished_atom, uint32_t>, caf::reacts_to<ControlSummary>,
    caf::replies_to<status_atom>::with<RunStatus>,
    caf::replies_to<weights_atom>::with<msg::WeightsFrame>,
    caf::replies_to<checkpoint_atom>::with<std::string, msg::WeightsFrame>,
    caf::replies_to<msg::ControlFrame>::with<uint64_t>, caf::reacts_to<shutdown_atom>,
    // A multi-node run (actors/cluster/): a node joined with its assignment; its samplers
    // started; it was lost (why); the learner acknowledged a segment of node N (bytes, policy
    // lag, oldest version, the env steps and episodes it carried); a node's distributor took a
    // weight update (its name, version, bytes); node N takes its weights from a source (its
    // name: the learner or a relay node); a control round reached a node's endpoints and
    // back (its name, us); the samplers may start (the nodes are in, or the join timeout
    // passed); (release): the run is over, the nodes are told to stop (answered with how many
    // did).
    caf::reacts_to<join_atom, NodeInfo, NodeAssignment>, caf::reacts_to<ready_atom, uint32_t>,
    caf::reacts_to<lost_atom, uint32_t, std::string>,
    caf::reacts_to<acked_atom, uint32_t, uint64_t, uint64_t, uint64_t, msg::MetricsFrame>,
    caf::reacts_to<delivered_atom, std::string, uint64_t, uint64_t>,
    caf::reacts_to<relay_atom, uint32_t, std::string>,
    caf::reacts_to<ping_atom, std::string, double>, caf::reacts_to<quorum_atom>,
    caf::replies_to<release_atom>::with<uint32_t>,
    // A message of node N (0: of no admitted node) was refused by the coordinator's side.
    caf::reacts_to<refused_atom, uint32_t>>;

// A user's stage on the data plane, between the samplers and the learner (reward shaping, a
// learned success detector, filtering, recording): answers each segment with the segment to pass
// on — the same frame, a changed one (msg::read, change, msg::build), or an empty frame to drop
// it (its env steps still count; the learner never sees it). Segments pass a graph's stages in
// order; an error answer ends the run, naming the stage.
using stage_actor = caf::typed_actor<caf::replies_to<msg::SegmentFrame>::with<msg::SegmentFrame>>;

// A user's observer on the control plane: receives every version the learner announces and every
// metrics report of the run (samplers' env steps and episodes, learner updates, evaluations,
// refusals; msg::read gives the typed report). Nothing waits for it.
using observer_actor =
    caf::typed_actor<caf::reacts_to<msg::VersionFrame>, caf::reacts_to<msg::MetricsFrame>>;

// ---- Across nodes (actors/cluster/) ----

// What a node may report to the coordinator besides its segments (control plane), in place of the
// supervisor's handle, which no peer holds: its actors' refusals (metrics: rejection reports
// only) and, as a relay, the versions its downstream took (name, version, bytes). One per node,
// bound to it: what it refuses counts against that node.
using node_reports_actor =
    caf::typed_actor<caf::reacts_to<msg::MetricsFrame>,
                     caf::reacts_to<delivered_atom, std::string, uint64_t, uint64_t>>;

// A node of a multi-node run (its control plane): told to stop when the run ends (why); it
// acknowledges, then stops. (relay, source): its weights come from `source` from now on (the relay
// it took them from was lost).
using node_actor = caf::typed_actor<caf::replies_to<shutdown_atom, std::string>::with<bool>,
                                    caf::reacts_to<relay_atom, WeightsSource>>;

// A sampler's uplink on a node: takes the sampler's segments and its reports and ships each
// segment to the coordinator together with the env steps and episodes reported before it, so that
// they count once the learner acknowledged them, and only then.
using uplink_actor = segment_sink_actor::extend<caf::reacts_to<msg::MetricsFrame>>;

// The coordinator's intake of one node's segments (data plane): passes each to the learner and,
// once acknowledged, its report to the supervisor; answers with the learner's version.
using segment_intake_actor =
    caf::typed_actor<caf::replies_to<msg::SegmentFrame, msg::MetricsFrame>::with<uint64_t>>;

// The coordinator's door on the data plane (published on the data port): (join, node, name)
// answers with the node's segment intake.
using segment_gate_actor =
    caf::typed_actor<caf::replies_to<join_atom, uint32_t, std::string>::with<segment_intake_actor>>;

// The coordinator's door on the control plane (published on cluster.listen), all a peer may ask
// of it: (challenge, the node's nonce) answers with a nonce of the coordinator's for this process
// (runtime/cluster/join_challenges.hpp) and the coordinator's proof of identity over the node's
// nonce (empty without TLS: runtime/cluster/peer_identity.hpp); (join, info, node, the
// coordinator's nonce, proof) — the nonce issued to this process, the proof over it and the
// node's name, checked against the cluster's CA, the node role and info's name — answers with
// the node's assignment and where it reports (node_reports_actor), and watches the node; (ready,
// node, endpoints): the node has built its part and has the current weights — its control endpoints
// join the control plane, and the answer (the node's number) says its samplers may start (once
// cluster.nodes are in, or the join timeout passed); (relay, node, its relay door's address): the
// node takes its place in the relay tree — the answer is where its weights come from (the learner,
// or a relay node). Ready and relay are taken only from the process that joined as that node.
using coordinator_actor = caf::typed_actor<
    caf::replies_to<challenge_atom, std::string>::with<std::string, IdentityProof>,
    caf::replies_to<join_atom, NodeInfo, node_actor, std::string,
                    IdentityProof>::with<NodeAssignment, node_reports_actor>,
    caf::replies_to<relay_atom, uint32_t, WeightsSource>::with<WeightsSource>,
    caf::replies_to<ready_atom, uint32_t, std::vector<EndpointRef>>::with<uint32_t>>;

}  // namespace dvla::actors
