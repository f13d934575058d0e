#pragma once
// The typed interfaces of dvla's actors: which frames each one accepts and what it answers.
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

#include <dvla/actors/atoms.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla::actors {

// Lane 2: answers observation batches with actions stamped with its policy version; swaps in
// weights the distributor staged (runtime/weights/double_buffered_replica.hpp) at batch boundaries.
using inference_actor =
    caf::typed_actor<caf::replies_to<msg::ObservationFrame>::with<msg::ActionFrame>,
                     caf::reacts_to<flush_atom>>;

// Lane 3: acknowledges each segment with its current version (a credit back to the sampler);
// trains once a batch is gathered and publishes the new weights. Saves checkpoints on request
// (given the run's env steps and episodes; answers the directory and the weights saved) and
// records their evaluations.
using trainer_actor = caf::typed_actor<
    caf::replies_to<msg::SegmentFrame>::with<uint64_t>,
    caf::replies_to<weights_atom>::with<msg::WeightsFrame>,
    caf::replies_to<checkpoint_atom, uint64_t, uint64_t>::with<std::string, msg::WeightsFrame>,
    caf::reacts_to<evaluated_atom, std::string, double, double>, caf::reacts_to<start_atom>,
    caf::reacts_to<train_atom>, caf::reacts_to<step_atom>>;

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

}  // namespace dvla::actors
