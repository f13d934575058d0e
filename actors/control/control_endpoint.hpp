#pragma once
// ControlEndpoint: the control plane's door to one data-plane actor (a sampler, an inference
// replica, the trainer, the distributor). It is an actor of its own on CAF's scheduler, apart
// from the lane threads, so a control round trip never queues behind observations or segments in
// the data actor's mailbox, nor waits for its compute:
//   ping             answered here at once, with how long ago the data actor's thread last
//                    finished a piece of work (from its LaneTrack: a health sign);
//   pause, resume    passed on to data actors that take orders (samplers) as high-priority
//                    messages (CAF's urgent queue, ahead of any queued data) and acknowledged
//                    once applied; refused by the others;
//   shutdown         ends the data actor, then the endpoint;
//   checkpoint       refused: the supervisor orders checkpoints from the trainer.
// When the supervisor restarts a failed data actor, its endpoint stays and stands for the new one.
// Every answer is (request id, idle ns of the data actor; -1 when it has no track).
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <memory>
#include <string>

#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>

namespace dvla::actors {

struct ControlEndpointSetup {
  std::string name;                  // the data actor's name
  caf::actor data_actor;             // the actor this endpoint stands for
  bool takes_orders = false;         // it handles pause and resume (ControlFrame -> request id)
  std::shared_ptr<LaneTrack> track;  // the data actor's; may be null
  double timeout_s = 60;             // for the data actor to apply an order
  caf::actor supervisor;             // receives rejection counts; may be null
};

control_endpoint_actor spawn_control_endpoint(caf::actor_system& system,
                                              ControlEndpointSetup setup);

}  // namespace dvla::actors
