@0x844a63a41873b1b0;
# Data plane, sampler -> inference: the current observation of each env of one sampler group.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");
using import "observation.capnp".Observation;

struct ObservationBatch {
  samplerId @0 :UInt32;
  sequence @1 :UInt64;            # increases by one per request of this sampler
  observations @2 :Observation;   # leading dimension [envs]
}
