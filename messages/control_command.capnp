@0x84c3677f02bb0947;
# Control plane, supervisor -> any actor (and outside -> supervisor).
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

struct ControlCommand {
  kind @0 :Kind;
  requestId @1 :UInt64;     # echoed in the acknowledgement
  argument @2 :Text;        # e.g. a checkpoint directory

  enum Kind {
    ping @0;
    pause @1;
    resume @2;
    checkpoint @3;
    shutdown @4;
    evaluate @5;   # supervisor only: evaluate the latest weights now
  }
}
