#pragma once
// Scene: the tabletop's MuJoCo model, loaded once and shared read-only by every env, with the ids
// of everything the envs, tasks and renderers address by name.
#include <array>
#include <memory>
#include <string>

#include <dvla/envs/tabletop/tabletop_config.hpp>

struct mjModel_;
typedef struct mjModel_ mjModel;

namespace dvla::envs::tabletop {

constexpr int cube_count = 4;
constexpr double cube_half_size = 0.02;
enum class Color { red, green, blue, yellow };

}  // namespace dvla::envs::tabletop

namespace dvla {

template <>
struct EnumNames<envs::tabletop::Color> {
  static constexpr std::array<std::pair<envs::tabletop::Color, std::string_view>, 4> names{
      {{envs::tabletop::Color::red, "red"},
       {envs::tabletop::Color::green, "green"},
       {envs::tabletop::Color::blue, "blue"},
       {envs::tabletop::Color::yellow, "yellow"}}};
};

}  // namespace dvla

namespace dvla::envs::tabletop {

struct SceneIds {
  int hand_body, target_mocap, bowl_mocap, zone_mocap, bowl_body, zone_body;
  int hand_qpos, hand_dof;
  int finger_l_geom, finger_r_geom, finger_l_qpos, finger_r_qpos;
  int tcp_site;
  int front_camera, wrist_camera;
  std::array<int, cube_count> cube_body, cube_geom, cube_qpos, cube_dof;
};

const std::string& scene_xml();

class Scene {
 public:
  // Throws MujocoError with MuJoCo's message if the model does not load.
  static std::shared_ptr<const Scene> load(Physics physics = Physics::fast);
  ~Scene();
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  const mjModel* model() const { return model_; }
  const SceneIds& ids() const { return ids_; }
  int substeps() const { return substeps_; }
  Physics physics() const { return physics_; }

 private:
  Scene(mjModel* model, Physics physics);
  mjModel* model_;
  SceneIds ids_{};
  int substeps_;
  Physics physics_;
};

}  // namespace dvla::envs::tabletop
