#pragma once
// The typed interfaces of dvla's actors: which frames each one accepts and what it answers.
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

#include <dvla/actors/atoms.hpp>
#include <dvla/messages/frame.hpp>
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

// Lane 4: copies one weight update into the staging buffer of every local inference replica;
// answers with its version once all have it.
using distributor_actor = caf::typed_actor<caf::replies_to<msg::WeightsFrame>::with<uint64_t>>;

// Lane 1: steps its envs with actions from inference, sends segments to the trainer. Takes
// pause and resume orders (from its control endpoint), answering with the request id.
using sampler_actor = caf::typed_actor<caf::reacts_to<start_atom>,
                                       caf::replies_to<msg::ControlFrame>::with<uint64_t>>;

// Control plane: one data actor's endpoint (actors/control/control_endpoint.hpp). Answers a command
// with its request id and how long ago the data actor last worked (ns; -1: unknown).
using control_endpoint_actor =
    caf::typed_actor<caf::replies_to<msg::ControlFrame>::with<uint64_t, int64_t>>;

// The control plane of a run (actors/control/control_plane.hpp): a command (ping, pause, resume)
// to every control endpoint it concerns, answered with its request id once all acknowledged; a
// ping round every control.ping_interval_s (ping_atom), its round trip sent to the supervisor.
using control_plane_actor =
    caf::typed_actor<caf::replies_to<msg::ControlFrame>::with<uint64_t>, caf::reacts_to<ping_atom>>;

// The supervisor of a run (actors/control/supervisor.hpp): gathers every actor's reports into
// the run's status, passes them on to the observers, has checkpoints and evaluations taken on
// schedule, and takes control commands from outside the graph. (finished, sampler id): that
// sampler spent its budget.
using supervisor_actor =
    caf::typed_actor<caf::reacts_to<msg::MetricsFrame>, caf::reacts_to<msg::VersionFrame>,
                     caf::reacts_to<finished_atom, uint32_t>, caf::reacts_to<ControlSummary>,
                     caf::replies_to<status_atom>::with<RunStatus>,
                     caf::replies_to<weights_atom>::with<msg::WeightsFrame>,
                     caf::replies_to<checkpoint_atom>::with<std::string, msg::WeightsFrame>,
                     caf::replies_to<msg::ControlFrame>::with<uint64_t>,
                     caf::reacts_to<shutdown_atom>>;

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

}  // namespace dvla::actors
