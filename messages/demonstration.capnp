@0xd96d3f77f4240339;
# Demonstration datasets (docs/datasets.md): a file of Cap'n Proto messages in the standard stream
# framing, a DatasetHeader first, then one Demonstration per episode, then a DatasetFooter.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");
using import "tensor.capnp".Tensor;
using import "observation.capnp".Observation;

struct DatasetHeader {
  format @0 :Text;           # "dvla-demonstrations"
  version @1 :UInt32;        # 2 (1: no footer)
  env @2 :Text;              # "tabletop"
  suite @3 :Text;            # the suite the episodes come from
  imageSize @4 :UInt32;      # camera images are imageSize x imageSize
  frontCamera @5 :Bool;
  wristCamera @6 :Bool;
  source @7 :Text;           # what acted: "scripted", or a policy's description
}

struct Demonstration {
  task @0 :Text;                 # e.g. "lift/red"
  instruction @1 :Text;
  layoutSeed @2 :UInt64;         # the initial state, with the task
  observations @3 :Observation;  # leading dimension [T]: what was seen before each action
  actions @4 :Tensor;            # float32 [T, action_dim]
  success @5 :Bool;
}

# Last: how many episodes precede it and a checksum of every byte before it, so a file cut at any
# byte, or changed, is found out.
struct DatasetFooter {
  magic @0 :Text;            # "dvla-demonstrations-end"
  episodes @1 :UInt64;
  checksum @2 :UInt64;       # XXH3-64 of the file's bytes before this message
}
