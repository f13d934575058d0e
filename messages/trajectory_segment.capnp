@0xd4579f9ddc1622d9;
# Data plane, sampler -> trainer: T consecutive steps of every env of one sampler.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");
using import "tensor.capnp".Tensor;
using import "observation.capnp".Observation;

struct TrajectorySegment {
  samplerId @0 :UInt32;
  sequence @1 :UInt64;             # increases by one per segment of this sampler
  observations @2 :Observation;    # leading dimensions [T, envs]: what the policy saw
  actions @3 :Tensor;              # float32 [T, envs, action_dim]
  rewards @4 :Tensor;              # float32 [T, envs]
  terminated @5 :Tensor;           # uint8 [T, envs]: the episode ended in a terminal state
  truncated @6 :Tensor;            # uint8 [T, envs]: the episode was cut by its time limit
  logProbs @7 :Tensor;             # float32 [T, envs], behaviour log-probabilities
  values @8 :Tensor;               # float32 [T, envs], behaviour critic estimates
  bootstrapValues @9 :Tensor;      # float32 [envs], estimate of the observation after step T-1
  policyVersions @10 :List(UInt64);  # [T] behaviour policy version of each step
  # Truncated steps lose their last observation to the env's auto-reset; it travels here so the
  # learner can bootstrap from it: one row per truncated (t, env), in ascending t * envs + env.
  finalObservations @11 :Observation;  # leading dimension [k]
  finalIndices @12 :List(UInt32);  # [k] t * envs + env
  success @13 :Tensor;             # uint8 [T, envs]: the step ended its episode with success
  # Episodic collection (GRPO): steps after an env's episode ended are padding, and envs that
  # started from the same initial state share a group id.
  valid @14 :Tensor;               # uint8 [T, envs]; absent: every step is valid
  groups @15 :List(Int32);         # [envs]; absent: no groups
  last @16 :Bool;                  # the sampler's final segment: it sends no more
  # The sampler's index of the segment's env 0 (a sampler's env buffers each ship their envs):
  # (samplerId, firstEnv + env) names one env's stream of steps across segments.
  firstEnv @17 :UInt32;
  # What each env observes after step T-1 (bootstrapValues value it), when the learner values
  # the segment with its own critic (ppo.advantage_values = learner); absent otherwise.
  bootstrapObservations @18 :Observation;  # leading dimension [envs]
}
