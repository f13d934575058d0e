#include <dvla/envs/tabletop/scene.hpp>

#include <mujoco/mujoco.h>

#include <dvla/envs/mujoco/mujoco_errors.hpp>
#include <dvla/envs/mujoco/xml_model.hpp>

namespace dvla::envs::tabletop {
namespace {

int id_of(const mjModel* m, mjtObj type, const std::string& name) {
  const int id = mj_name2id(m, type, name.c_str());
  if (id < 0) throw MujocoError("tabletop scene has no object named '" + name + "'");
  return id;
}

}  // namespace

std::shared_ptr<const Scene> Scene::load(Physics physics) {
  return std::shared_ptr<const Scene>(
      new Scene(load_xml_model("tabletop", scene_xml().c_str()).release(), physics));
}

Scene::Scene(mjModel* m, Physics physics) : model_(m), physics_(physics) {
  if (physics == Physics::reference) {
    m->opt.timestep = 0.002;
    for (int g = 0; g < m->ngeom; ++g) m->geom_condim[g] = 4;
    substeps_ = 25;
  } else {
    substeps_ = 12;
  }
  auto& i = ids_;
  i.hand_body = id_of(m, mjOBJ_BODY, "hand");
  i.bowl_body = id_of(m, mjOBJ_BODY, "bowl");
  i.zone_body = id_of(m, mjOBJ_BODY, "zone");
  i.target_mocap = m->body_mocapid[id_of(m, mjOBJ_BODY, "ee_target")];
  i.bowl_mocap = m->body_mocapid[i.bowl_body];
  i.zone_mocap = m->body_mocapid[i.zone_body];
  const int hand_joint = id_of(m, mjOBJ_JOINT, "hand_free");
  i.hand_qpos = m->jnt_qposadr[hand_joint];
  i.hand_dof = m->jnt_dofadr[hand_joint];
  i.finger_l_geom = id_of(m, mjOBJ_GEOM, "finger_l");
  i.finger_r_geom = id_of(m, mjOBJ_GEOM, "finger_r");
  i.finger_l_qpos = m->jnt_qposadr[id_of(m, mjOBJ_JOINT, "finger_l")];
  i.finger_r_qpos = m->jnt_qposadr[id_of(m, mjOBJ_JOINT, "finger_r")];
  i.tcp_site = id_of(m, mjOBJ_SITE, "tcp");
  i.front_camera = id_of(m, mjOBJ_CAMERA, "front");
  i.wrist_camera = id_of(m, mjOBJ_CAMERA, "wrist");
  for (int c = 0; c < cube_count; ++c) {
    const std::string name = std::string("cube_") + std::string(to_text(static_cast<Color>(c)));
    i.cube_body[c] = id_of(m, mjOBJ_BODY, name);
    i.cube_geom[c] = id_of(m, mjOBJ_GEOM, name);
    const int joint = id_of(m, mjOBJ_JOINT, name);
    i.cube_qpos[c] = m->jnt_qposadr[joint];
    i.cube_dof[c] = m->jnt_dofadr[joint];
  }
}

Scene::~Scene() { mj_deleteModel(model_); }

}  // namespace dvla::envs::tabletop
