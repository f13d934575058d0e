@0xb5ef7767bd5213eb;
# What a policy sees, for a block of envs (or steps x envs): the leading dimensions of every
# field are the same. Only `state` is required; the tabletop suite adds camera images and the
# instruction as token ids.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");
using import "tensor.capnp".Tensor;

struct Observation {
  state @0 :Tensor;         # float32 [..., obs...]: the float observation (proprioception)
  images @1 :Tensor;        # uint8 [..., cameras, height, width, 3], rows top-down
  instructions @2 :Tensor;  # int32 [..., length]: token ids of the instruction, 0 pads
}
