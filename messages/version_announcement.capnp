@0xab4738d7caa1fd94;
# Control plane, trainer -> supervisor: a new policy version exists.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

struct VersionAnnouncement {
  version @0 :UInt64;
  samplesTrained @1 :UInt64;    # env steps the trainer has learned from, in total
  samplesDropped @2 :UInt64;    # env steps dropped as too stale, in total
  policyLagMean @3 :Float64;    # mean versions behind of the samples in this update
}
