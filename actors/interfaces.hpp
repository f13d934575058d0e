#pragma once
// The typed interfaces of dvla's actors: which frames each one accepts and what it answers.
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>

#include "actors/atoms.hpp"
#include "messages/frame.hpp"

namespace dvla::actors {

// Lane 2: answers observation batches with actions stamped with its policy version; stages new
// weights and swaps them in at the next batch boundary (answering with the staged version).
using inference_actor =
    caf::typed_actor<caf::replies_to<msg::ObservationFrame>::with<msg::ActionFrame>,
                     caf::replies_to<msg::WeightsFrame>::with<uint64_t>,
                     caf::reacts_to<flush_atom>>;

// Lane 3: acknowledges each segment with its current version (a credit back to the sampler);
// trains once a batch is gathered and publishes the new weights.
using trainer_actor = caf::typed_actor<caf::replies_to<msg::SegmentFrame>::with<uint64_t>,
                                       caf::replies_to<weights_atom>::with<msg::WeightsFrame>,
                                       caf::reacts_to<start_atom>, caf::reacts_to<train_atom>>;

// Lane 4: fans one weight update out to every local inference replica; answers when all have it.
using distributor_actor = caf::typed_actor<caf::replies_to<msg::WeightsFrame>::with<uint64_t>>;

// Lane 1: steps its envs with actions from inference, sends segments to the trainer.
using sampler_actor =
    caf::typed_actor<caf::reacts_to<start_atom>, caf::reacts_to<msg::ControlFrame>>;

}  // namespace dvla::actors
