#include <dvla/actors/support/type_registry.hpp>

#include <dvla/actors/interfaces.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>

namespace dvla::actors {

void register_types(caf::actor_system_config& config) {
  config.add_message_type<msg::ObservationFrame>("dvla::ObservationFrame");
  config.add_message_type<msg::ActionFrame>("dvla::ActionFrame");
  config.add_message_type<msg::SegmentFrame>("dvla::SegmentFrame");
  config.add_message_type<msg::WeightsFrame>("dvla::WeightsFrame");
  config.add_message_type<msg::WeightChunkFrame>("dvla::WeightChunkFrame");
  config.add_message_type<msg::VersionFrame>("dvla::VersionFrame");
  config.add_message_type<msg::ControlFrame>("dvla::ControlFrame");
  config.add_message_type<msg::MetricsFrame>("dvla::MetricsFrame");
  config.add_message_type<RunStatus>("dvla::RunStatus");
  config.add_message_type<inference_actor>("dvla::inference_actor");
  config.add_message_type<trainer_actor>("dvla::trainer_actor");
  config.add_message_type<distributor_actor>("dvla::distributor_actor");
  config.add_message_type<sampler_actor>("dvla::sampler_actor");
  config.add_message_type<evaluator_actor>("dvla::evaluator_actor");
  config.add_message_type<control_endpoint_actor>("dvla::control_endpoint_actor");
  config.add_message_type<ControlSummary>("dvla::ControlSummary");
  config.add_message_type<PoolSummary>("dvla::PoolSummary");
  config.add_message_type<EvaluationSummary>("dvla::EvaluationSummary");
  config.add_message_type<msg::LearnerStats>("dvla::LearnerStats");
  config.add_message_type<GroupStatus>("dvla::GroupStatus");
  config.add_message_type<control_plane_actor>("dvla::control_plane_actor");
  config.add_message_type<supervisor_actor>("dvla::supervisor_actor");
  config.add_message_type<stage_actor>("dvla::stage_actor");
  config.add_message_type<observer_actor>("dvla::observer_actor");
  config.add_message_type<NodeStatus>("dvla::NodeStatus");
  // A multi-node run's join (actors/cluster/).
  config.add_message_type<NodeInfo>("dvla::NodeInfo");
  config.add_message_type<NodeAssignment>("dvla::NodeAssignment");
  config.add_message_type<WeightsSource>("dvla::WeightsSource");
  config.add_message_type<EndpointRef>("dvla::EndpointRef");
  config.add_message_type<segment_sink_actor>("dvla::segment_sink_actor");
  config.add_message_type<node_actor>("dvla::node_actor");
  config.add_message_type<uplink_actor>("dvla::uplink_actor");
  config.add_message_type<segment_intake_actor>("dvla::segment_intake_actor");
  config.add_message_type<segment_gate_actor>("dvla::segment_gate_actor");
  config.add_message_type<coordinator_actor>("dvla::coordinator_actor");
  config.add_message_type<node_reports_actor>("dvla::node_reports_actor");
  config.add_message_type<relay_door_actor>("dvla::relay_door_actor");
  config.add_error_category(
      caf::atom("dvla"), [](uint8_t code, caf::atom_value, const caf::message& context) {
        return describe(make_error(static_cast<errc>(code), context.match_elements<std::string>()
                                                                ? context.get_as<std::string>(0)
                                                                : std::string()));
      });
}

}  // namespace dvla::actors
