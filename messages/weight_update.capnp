@0xd6b0b001b670301e;
# Control plane, trainer -> distributor -> inference: a whole parameter set as one flat buffer.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

struct WeightUpdate {
  version @0 :UInt64;
  manifest @1 :List(Entry);   # where each named parameter lives in `flat`
  flat @2 :Data;              # the parameters, back to back in manifest order, in `precision`
  precision @3 :Precision;    # float32 unless the sender rounded them for the wire

  enum Precision {
    float32 @0;
    bfloat16 @1;
  }

  struct Entry {
    name @0 :Text;
    shape @1 :List(UInt32);
    offset @2 :UInt64;        # in elements from the start of `flat`
  }
}
