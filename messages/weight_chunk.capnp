@0xb1c4e0f6a53d2e77;
# Control plane, distributor -> distributor (across nodes): one piece of a weight-update frame.
# A version crosses as `count` chunks in order; the receiver puts them together and checks the
# whole frame's size and checksum before any replica may stage it.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

struct WeightChunk {
  version @0 :UInt64;     # the policy version the whole frame holds
  index @1 :UInt32;       # 0 .. count-1
  count @2 :UInt32;       # chunks of this version
  offset @3 :UInt64;      # where `data` starts in the whole frame, in bytes
  totalBytes @4 :UInt64;  # the whole frame's size
  checksum @5 :UInt64;    # XXH3-64 of the whole frame's bytes (core/checksum.hpp)
  data @6 :Data;
}
