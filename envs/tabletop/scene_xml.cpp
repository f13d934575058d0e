#include <dvla/envs/tabletop/scene.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace dvla::envs::tabletop {
namespace {

// The bowl's shape: a base disc and 8 walls around its rim (collision geoms, and the mesh below).
constexpr double bowl_radius = 0.078, bowl_base_half = 0.004;
constexpr double wall_half[3] = {0.004, 0.0307, 0.02};
constexpr int bowl_walls = 8, base_slices = 28;  // 28: MuJoCo's own cylinder slices

// Triangles with a vertex each (no vertex shared between faces), so MuJoCo's normals are the
// faces' own and the mesh shades flat, as the geoms it stands for.
class MeshText {
 public:
  void triangle(const std::array<double, 3>& a, const std::array<double, 3>& b,
                const std::array<double, 3>& c) {
    for (const auto* v : {&a, &b, &c}) {
      for (double x : *v) vertices_ += std::to_string(x) + " ";
      faces_ += std::to_string(count_++) + " ";
    }
  }
  void quad(const std::array<double, 3>& a, const std::array<double, 3>& b,
            const std::array<double, 3>& c, const std::array<double, 3>& d) {
    triangle(a, b, c);
    triangle(a, c, d);
  }
  std::string xml(const char* name) const {
    return std::string("<mesh name=\"") + name + "\" vertex=\"" + vertices_ + "\" face=\"" +
           faces_ + "\"/>";
  }

 private:
  std::string vertices_, faces_;
  int count_ = 0;
};

// A box of half sizes h at (x, y, z) turned by yaw about z; faces wound outwards.
void add_box(MeshText& mesh, const double* h, double x, double y, double z, double yaw) {
  const double c = std::cos(yaw), s = std::sin(yaw);
  auto corner = [&](int i, int j, int k) -> std::array<double, 3> {
    const double lx = i ? h[0] : -h[0], ly = j ? h[1] : -h[1], lz = k ? h[2] : -h[2];
    return {x + c * lx - s * ly, y + s * lx + c * ly, z + lz};
  };
  mesh.quad(corner(1, 0, 0), corner(1, 1, 0), corner(1, 1, 1), corner(1, 0, 1));  // +x
  mesh.quad(corner(0, 1, 0), corner(0, 0, 0), corner(0, 0, 1), corner(0, 1, 1));  // -x
  mesh.quad(corner(1, 1, 0), corner(0, 1, 0), corner(0, 1, 1), corner(1, 1, 1));  // +y
  mesh.quad(corner(0, 0, 0), corner(1, 0, 0), corner(1, 0, 1), corner(0, 0, 1));  // -y
  mesh.quad(corner(0, 0, 1), corner(1, 0, 1), corner(1, 1, 1), corner(0, 1, 1));  // +z
  mesh.quad(corner(0, 1, 0), corner(1, 1, 0), corner(1, 0, 0), corner(0, 0, 0));  // -z
}

// The bowl's base and walls as one mesh: one draw call where the geoms take nine, and llvmpipe's
// cost per draw call (about 15 us) is most of a small frame's.
std::string bowl_mesh() {
  MeshText mesh;
  const double top = 2 * bowl_base_half;
  for (int k = 0; k < base_slices; ++k) {
    const double a0 = 2 * M_PI * k / base_slices, a1 = 2 * M_PI * (k + 1) / base_slices;
    const std::array<double, 3> b0{bowl_radius * std::cos(a0), bowl_radius * std::sin(a0), 0};
    const std::array<double, 3> b1{bowl_radius * std::cos(a1), bowl_radius * std::sin(a1), 0};
    const std::array<double, 3> t0{b0[0], b0[1], top}, t1{b1[0], b1[1], top};
    mesh.triangle({0, 0, top}, t0, t1);
    mesh.triangle({0, 0, 0}, b1, b0);
    mesh.quad(b0, b1, t1, t0);
  }
  for (int k = 0; k < bowl_walls; ++k) {
    const double yaw = 2 * M_PI * k / bowl_walls;
    add_box(mesh, wall_half, bowl_radius * std::cos(yaw), bowl_radius * std::sin(yaw),
            wall_half[2], yaw);
  }
  return mesh.xml("bowl");
}

std::string build_scene_xml();

}  // namespace

// The tabletop scene (MJCF for MuJoCo 2.2.2). Choices and their reasons
// (see docs/tabletop.md for the measurements behind them):
// - the table's collision geom is a plane: box-box contact of a cube resting on a box table at
//   45 degrees yaw produced phantom deep contacts that launched the cube;
// - the gripper is a free body welded to a mocap target, so the controller moves the target in
//   end-effector space and needs no arm;
// - the bowl and the zone are mocap bodies, so episodes place them without editing the shared
//   mjModel;
// - 4 ms x 12 substeps (20.8 Hz control): 5 ms let grasps penetrate about 5 mm;
// - finger actuators with kp 100: at kp 300 the grip pressed the fingers 7 mm into the cubes
//   (MuJoCo's contacts are soft); at 100 the deepest contact is about 2 mm and grasps still hold;
// - warm-starting the solver is off: it measured 15-20% slower on this scene with the same
//   trajectories and success;
// - no table texture, one light: llvmpipe's per-pixel cost is most of a 64x64 frame;
// - the bowl is drawn as one mesh, its nine collision geoms are not (group 3): llvmpipe spends
//   about 15 us per geom drawn whatever its size, and 18 geoms became 10 (-40% per frame);
// - primitives tessellated coarsely (12 slices, 6 stacks, one quad per box face, not MuJoCo's
//   28, 16 and 4): that per-geom cost is mostly vertices, and a frame of both cameras at 32x32
//   costs 0.46x (0.03% of a strip's pixels change by more than 16 levels);
// - shadowsize 0 and offsamples 0: the defaults cost 66 MiB per render context even with
//   shadows switched off.
const std::string& scene_xml() {
  static const std::string xml = build_scene_xml();
  return xml;
}

namespace {

std::string build_scene_xml() {
  return std::string(R"(<mujoco model="dvla_tabletop">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.004" integrator="Euler" cone="pyramidal">
    <flag warmstart="disable"/>
  </option>
  <size nconmax="60" njmax="300"/>
  <asset>
    )") + bowl_mesh() + R"(
  </asset>
  <visual>
    <global offwidth="128" offheight="128"/>
    <quality shadowsize="0" offsamples="0" numslices="12" numstacks="6" numquads="1"/>
    <headlight ambient="0.4 0.4 0.4" diffuse="0.6 0.6 0.6" specular="0.05 0.05 0.05"/>
    <map znear="0.01" zfar="5"/>
  </visual>
  <default>
    <geom condim="3" friction="1 0.005 0.0001" solref="0.01 1"/>
    <default class="cube">
      <geom type="box" size="0.02 0.02 0.02" mass="0.05"/>
    </default>
    <default class="finger">
      <joint type="slide" range="0 0.045" damping="5" armature="0.001" limited="true"/>
      <geom type="box" friction="1.5 0.005 0.0001" rgba="0.25 0.25 0.28 1"/>
    </default>
    <default class="visual">
      <geom contype="0" conaffinity="0" group="1"/>
    </default>
    <!-- Collision only (group 3 is not drawn): the mesh "bowl" draws them. -->
    <default class="bowl">
      <geom rgba="0.92 0.92 0.88 1" mass="0.2" group="3"/>
    </default>
  </default>
  <worldbody>
    <geom name="table" type="plane" size="0.6 0.7 0.05" rgba="0.55 0.45 0.35 1"/>
    <!-- 55 degrees down from 48 cm up: the table fills the view, the workspace its middle. -->
    <camera name="front" pos="0.38 0 0.48" xyaxes="0 1 0 -0.819 0 0.574" fovy="58"/>

    <body name="ee_target" mocap="true" pos="-0.1 0 0.25"/>
    <body name="hand" pos="-0.1 0 0.25">
      <freejoint name="hand_free"/>
      <geom name="palm" type="box" size="0.015 0.06 0.012" pos="0 0 -0.008" mass="0.3"
            rgba="0.3 0.3 0.34 1"/>
      <site name="tcp" pos="0 0 -0.05" size="0.005" group="3"/>
      <camera name="wrist" pos="-0.09 0 0.03" xyaxes="0 -1 0 0.866 0 0.5" fovy="75"/>
      <body name="finger_l" pos="0 0.006 -0.045">
        <joint name="finger_l" class="finger" axis="0 1 0"/>
        <geom name="finger_l" class="finger" size="0.012 0.006 0.025" mass="0.02"/>
      </body>
      <body name="finger_r" pos="0 -0.006 -0.045">
        <joint name="finger_r" class="finger" axis="0 -1 0"/>
        <geom name="finger_r" class="finger" size="0.012 0.006 0.025" mass="0.02"/>
      </body>
    </body>

    <body name="cube_red" pos="0 -0.15 0.02"><freejoint name="cube_red"/>
      <geom name="cube_red" class="cube" rgba="0.85 0.1 0.1 1"/></body>
    <body name="cube_green" pos="0 -0.05 0.02"><freejoint name="cube_green"/>
      <geom name="cube_green" class="cube" rgba="0.1 0.7 0.15 1"/></body>
    <body name="cube_blue" pos="0 0.05 0.02"><freejoint name="cube_blue"/>
      <geom name="cube_blue" class="cube" rgba="0.1 0.25 0.9 1"/></body>
    <body name="cube_yellow" pos="0 0.15 0.02"><freejoint name="cube_yellow"/>
      <geom name="cube_yellow" class="cube" rgba="0.95 0.85 0.1 1"/></body>

    <body name="bowl" mocap="true" pos="0.15 0.25 0">
      <geom name="bowl_base" class="bowl" type="cylinder" size="0.078 0.004" pos="0 0 0.004"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="0.078 0 0.02" euler="0 0 0"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="0.0552 0.0552 0.02" euler="0 0 0.7854"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="0 0.078 0.02" euler="0 0 1.5708"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="-0.0552 0.0552 0.02" euler="0 0 2.3562"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="-0.078 0 0.02" euler="0 0 3.1416"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="-0.0552 -0.0552 0.02" euler="0 0 3.9270"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="0 -0.078 0.02" euler="0 0 4.7124"/>
      <geom class="bowl" type="box" size="0.004 0.0307 0.02" pos="0.0552 -0.0552 0.02" euler="0 0 5.4978"/>
      <geom name="bowl_visual" class="visual" type="mesh" mesh="bowl" rgba="0.92 0.92 0.88 1"/>
    </body>
    <body name="zone" mocap="true" pos="-0.2 -0.3 0">
      <geom name="zone" class="visual" type="cylinder" size="0.05 0.0005" pos="0 0 0.0006"
            rgba="0.3 0.85 0.35 1"/>
    </body>
  </worldbody>
  <contact>
    <exclude body1="finger_l" body2="finger_r"/>
    <exclude body1="hand" body2="finger_l"/>
    <exclude body1="hand" body2="finger_r"/>
  </contact>
  <actuator>
    <position name="finger_l" joint="finger_l" kp="100" ctrlrange="0 0.045" forcerange="-15 15"/>
    <position name="finger_r" joint="finger_r" kp="100" ctrlrange="0 0.045" forcerange="-15 15"/>
  </actuator>
  <equality>
    <weld body1="ee_target" body2="hand" solref="0.01 1"/>
  </equality>
</mujoco>
)";
}

}  // namespace
}  // namespace dvla::envs::tabletop
