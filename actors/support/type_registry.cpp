#include <dvla/actors/support/type_registry.hpp>

#include <string>
#include <utility>
#include <vector>

#include <dvla/actors/interfaces.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/run_status_inspect.hpp>

namespace dvla::actors {

namespace {

// Registers each type with a config, or only lists its name.
class Registrar {
 public:
  explicit Registrar(caf::actor_system_config* config) : config_(config) {}

  template <class T>
  void add(const char* name) {
    names_.emplace_back(name);
    if (config_ != nullptr) config_->add_message_type<T>(name);
  }

  std::vector<std::string> names() && { return std::move(names_); }

 private:
  caf::actor_system_config* config_;
  std::vector<std::string> names_;
};

void register_all(Registrar& r) {
  r.add<msg::ObservationFrame>("dvla::ObservationFrame");
  r.add<msg::ActionFrame>("dvla::ActionFrame");
  r.add<msg::SegmentFrame>("dvla::SegmentFrame");
  r.add<msg::WeightsFrame>("dvla::WeightsFrame");
  r.add<msg::WeightChunkFrame>("dvla::WeightChunkFrame");
  r.add<msg::VersionFrame>("dvla::VersionFrame");
  r.add<msg::ControlFrame>("dvla::ControlFrame");
  r.add<msg::MetricsFrame>("dvla::MetricsFrame");
  r.add<RunStatus>("dvla::RunStatus");
  r.add<inference_actor>("dvla::inference_actor");
  r.add<trainer_actor>("dvla::trainer_actor");
  r.add<distributor_actor>("dvla::distributor_actor");
  r.add<sampler_actor>("dvla::sampler_actor");
  r.add<evaluator_actor>("dvla::evaluator_actor");
  r.add<control_endpoint_actor>("dvla::control_endpoint_actor");
  r.add<ControlSummary>("dvla::ControlSummary");
  r.add<PoolSummary>("dvla::PoolSummary");
  r.add<EvaluationSummary>("dvla::EvaluationSummary");
  r.add<msg::LearnerStats>("dvla::LearnerStats");
  r.add<GroupStatus>("dvla::GroupStatus");
  r.add<control_plane_actor>("dvla::control_plane_actor");
  r.add<supervisor_actor>("dvla::supervisor_actor");
  r.add<stage_actor>("dvla::stage_actor");
  r.add<observer_actor>("dvla::observer_actor");
  r.add<NodeStatus>("dvla::NodeStatus");
  // A multi-node run's join (actors/cluster/).
  r.add<NodeInfo>("dvla::NodeInfo");
  r.add<NodeAssignment>("dvla::NodeAssignment");
  r.add<WeightsSource>("dvla::WeightsSource");
  r.add<IdentityProof>("dvla::IdentityProof");
  r.add<EndpointRef>("dvla::EndpointRef");
  r.add<segment_sink_actor>("dvla::segment_sink_actor");
  r.add<node_actor>("dvla::node_actor");
  r.add<uplink_actor>("dvla::uplink_actor");
  r.add<segment_intake_actor>("dvla::segment_intake_actor");
  r.add<segment_gate_actor>("dvla::segment_gate_actor");
  r.add<coordinator_actor>("dvla::coordinator_actor");
  r.add<node_reports_actor>("dvla::node_reports_actor");
  r.add<relay_door_actor>("dvla::relay_door_actor");
}

}  // namespace

void register_types(caf::actor_system_config& config) {
  Registrar registrar(&config);
  register_all(registrar);
  config.add_error_category(
      caf::atom("dvla"), [](uint8_t code, caf::atom_value, const caf::message& context) {
        return describe(make_error(static_cast<errc>(code), context.match_elements<std::string>()
                                                                ? context.get_as<std::string>(0)
                                                                : std::string()));
      });
}

std::vector<std::string> registered_type_names() {
  Registrar registrar(nullptr);
  register_all(registrar);
  return std::move(registrar).names();
}

}  // namespace dvla::actors
