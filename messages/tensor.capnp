@0xb0deb98c317242e9;
# A dense array carried by value inside a message. Readers view `data` in place.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

enum DType {
  float32 @0;
  uint8 @1;
  int32 @2;
}

struct Tensor {
  dtype @0 :DType;
  shape @1 :List(UInt32);
  # Row-major, little-endian; length is product(shape) * size of dtype. Data is word-aligned
  # inside a word-aligned frame, so a float32 view of it is aligned.
  data @2 :Data;
}
