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
using attach_atom = caf::atom_constant<caf::atom("attach")>;
using delivered_atom = caf::atom_constant<caf::atom("delivered")>;
using join_atom = caf::atom_constant<caf::atom("join")>;
using ready_atom = caf::atom_constant<caf::atom("ready")>;
using lost_atom = caf::atom_constant<caf::atom("lost")>;
using acked_atom = caf::atom_constant<caf::atom("acked")>;
using quorum_atom = caf::atom_constant<caf::atom("quorum")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using relay_atom = caf::atom_constant<caf::atom("relay")>;
using pump_atom = caf::atom_constant<caf::atom("pump")>;
using replica_atom = caf::atom_constant<caf::atom("replica")>;
using replace_atom = caf::atom_constant<caf::atom("replace")>;
using trainer_atom = caf::atom_constant<caf::atom("trainer")>;
using parent_atom = caf::atom_constant<caf::atom("parent")>;
using refused_atom = caf::atom_constant<caf::atom("refused")>;
using intake_atom = caf::atom_constant<caf::atom("intake")>;
using challenge_atom = caf::atom_constant<caf::atom("challenge")>;
using locate_atom = caf::atom_constant<caf::atom("locate")>;
using disconnect_atom = caf::atom_constant<caf::atom("disconnect")>;

}  // namespace dvla::actors
