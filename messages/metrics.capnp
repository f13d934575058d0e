@0x80917c0efad78cfb;
# Control plane, any actor -> supervisor (and on to the run's observers): one typed report from
# one source at one instant.
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("dvla::schema");

struct Metrics {
  source @0 :Text;              # e.g. "sampler/1"
  timestampNs @1 :UInt64;       # steady clock of the sender
  union {
    sampling @2 :Sampling;
    learning @3 :Learning;
    evaluation @4 :Evaluation;
    rejection @5 :Rejection;
  }

  # A sampler's env steps and the episodes that ended since its last report.
  struct Sampling {
    group @0 :UInt32;                   # the env group the sampler belongs to
    envSteps @1 :UInt64;
    episodeReturns @2 :List(Float64);
    episodeSuccesses @3 :List(Bool);    # one per return
    segmentsDropped @4 :UInt64;         # by the graph's stages (their env steps count)
  }

  # One learner update: its statistics, averaged over its gradient steps.
  struct Learning {
    version @0 :UInt64;                 # the version the update produced
    samples @1 :UInt64;
    policyLoss @2 :Float64;
    valueLoss @3 :Float64;
    entropy @4 :Float64;
    approxKl @5 :Float64;
    clipFraction @6 :Float64;
    referenceKl @7 :Float64;
    learningRate @8 :Float64;
    importanceWeightMax @9 :Float64;
    importanceWeightEss @10 :Float64;
    policyLag @11 :List(UInt64);        # [versions behind]: samples of the update that far behind
  }

  # An evaluation of one policy version on the env's evaluation starts.
  struct Evaluation {
    version @0 :UInt64;
    episodes @1 :UInt32;
    successRate @2 :Float64;
    meanReturn @3 :Float64;
    meanLength @4 :Float64;
    families @5 :List(Family);          # envs with task families only
    video @6 :Text;                     # the GIF of its first episodes; empty: none recorded
    videoError @7 :Text;                # why a video that was due could not be written

    struct Family {
      name @0 :Text;
      successRate @1 :Float64;
    }
  }

  # A message an actor refused as malformed or incompatible.
  struct Rejection {
    reason @0 :Text;
  }
}
