#pragma once
// The atoms of dvla's actor interfaces (CAF 0.17: at most 10 characters each).
#include <caf/atom.hpp>

namespace dvla::actors {

using start_atom = caf::atom_constant<caf::atom("start")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using train_atom = caf::atom_constant<caf::atom("train")>;
using step_atom = caf::atom_constant<caf::atom("step")>;
using weights_atom = caf::atom_constant<caf::atom("weights")>;
using status_atom = caf::atom_constant<caf::atom("status")>;
using finished_atom = caf::atom_constant<caf::atom("finished")>;
using shutdown_atom = caf::atom_constant<caf::atom("shutdown")>;
using checkpoint_atom = caf::atom_constant<caf::atom("checkpnt")>;
using evaluated_atom = caf::atom_constant<caf::atom("evaluated")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;

}  // namespace dvla::actors
