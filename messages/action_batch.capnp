@0xe37cd49273620938;
# Data plane, inference -> sampler: the answer to one ObservationBatch.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");
using import "tensor.capnp".Tensor;

struct ActionBatch {
  samplerId @0 :UInt32;
  sequence @1 :UInt64;        # the sequence of the ObservationBatch answered
  policyVersion @2 :UInt64;   # weights version that produced these actions
  actions @3 :Tensor;         # float32 [envs, action_dim]; a discrete action is its index
  logProbs @4 :Tensor;        # float32 [envs], behaviour log-probability of each action
  values @5 :Tensor;          # float32 [envs], critic estimate of each observation
}
