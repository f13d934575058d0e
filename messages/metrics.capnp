@0x80917c0efad78cfb;
# Control plane, any actor -> supervisor: named measurements at one instant.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

struct Metrics {
  source @0 :Text;              # e.g. "sampler/1"
  timestampNs @1 :UInt64;       # steady clock of the sender
  samples @2 :List(Sample);

  struct Sample {
    name @0 :Text;
    value @1 :Float64;
  }
}
