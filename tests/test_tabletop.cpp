// The tabletop suite: tasks are solvable and not trivially so, resets are reproducible to the
// byte, predicates mean what they say, images show the scene, evaluation states stay apart from
// training, memory does not grow, and MuJoCo errors become C++ errors.
#include <doctest/doctest.h>
#include <malloc.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include <dvla/core/cpu_clock.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/env_registry.hpp>
#include <dvla/envs/tabletop/camera_renderer.hpp>
#include <dvla/envs/tabletop/gl_context.hpp>
#include <dvla/envs/mujoco/mujoco_errors.hpp>
#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/suite.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/envs/tabletop/task_rules.hpp>
#include <dvla/envs/tabletop/vocabulary.hpp>

using namespace dvla::envs;
using namespace dvla::envs::tabletop;

namespace {

constexpr double h = cube_half_size;

// Runs one episode of `task` from `seed` with `policy` (state -> action); true on success.
template <class Policy>
bool episode(TabletopEnv& env, const InitialState& start, Policy&& policy) {
  env.reset(start);
  for (;;) {
    const auto action = policy(env.state());
    const auto r = env.step(action.data());
    if (r.success) return true;
    if (r.truncated) return false;
  }
}

// A state where every cube rests far from everything, for predicate tests to edit.
TabletopState calm_state() {
  TabletopState s;
  for (int c = 0; c < cube_count; ++c) s.cube[c] = {-0.2 + 0.1 * c, 0.3, h};
  s.bowl = {0.1, -0.1};
  s.zone = {-0.1, -0.1};
  s.tcp = {0, 0, 0.2};
  return s;
}

size_t allocated_bytes() {
  const auto info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 10, '\n');
  }
  return -1;
}

}  // namespace

TEST_CASE("the scripted expert solves every family; random and zero actions do not") {
  auto scene = Scene::load();
  TabletopEnv env(scene);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const char* family : {"lift", "push", "place_bowl", "stack"}) {
    CAPTURE(family);
    const auto s = suite(family).value();
    int expert = 0, random = 0, zero = 0;
    const int episodes = 12;
    for (int e = 0; e < episodes; ++e) {
      const auto start = training_state(s, 100 + e);
      ScriptedExpert x(start.task);
      expert += episode(env, start, [&](const TabletopState& st) { return x.act(st); });
      random += episode(env, start, [&](const TabletopState&) {
        std::array<float, action_size> a;
        for (auto& v : a) v = u(rng);
        return a;
      });
      zero += episode(env, start,
                      [](const TabletopState&) { return std::array<float, action_size>{}; });
    }
    CHECK(expert == episodes);  // deterministic; >= 95% over 200 episodes: dvla-bench env
    CHECK(random == 0);
    CHECK(zero == 0);
  }
}

TEST_CASE("the same seeds give byte-identical observations, whatever the thread count") {
  TabletopConfig one;
  one.threads = 1;
  TabletopConfig two = one;
  two.threads = 2;
  TabletopBatch a(one, 4), b(two, 4);
  const std::vector<uint64_t> seeds = {1, 2, 3, 1};
  a.reset(seeds);
  b.reset(seeds);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> actions(4 * action_size);
  for (int t = 0; t < 30; ++t) {
    CHECK(a.output().images == b.output().images);
    CHECK(a.output().observations == b.output().observations);
    CHECK(a.output().instruction_tokens == b.output().instruction_tokens);
    for (auto& v : actions) v = u(rng);
    a.step(actions.data());
    b.step(actions.data());
  }
  // Envs 0 and 3 started from the same seed: the same scene, the same first frame.
  a.reset(seeds);
  const auto per_env = static_cast<size_t>(a.spec().image_size());
  const auto& images = a.output().images;
  CHECK(std::equal(images.begin(), images.begin() + per_env, images.begin() + 3 * per_env));
  CHECK_FALSE(std::equal(images.begin(), images.begin() + per_env, images.begin() + per_env));
}

TEST_CASE("the env threads' CPU time is reported: stepping and rendering on them, not the caller") {
  TabletopConfig config;
  config.threads = 2;
  TabletopBatch batch(config, 4);
  batch.reset({1, 2, 3, 4});
  std::vector<float> actions(4 * action_size, 0.f);
  const int64_t before = batch.worker_cpu_ns();
  const int64_t caller_before = dvla::thread_cpu_ns();
  const int64_t process_before = dvla::process_cpu_ns();
  for (int t = 0; t < 20; ++t) batch.step(actions.data());
  const int64_t workers = batch.worker_cpu_ns() - before;
  const int64_t caller = dvla::thread_cpu_ns() - caller_before;
  const int64_t process = dvla::process_cpu_ns() - process_before;
  MESSAGE("80 env steps with two 64x64 cameras: env threads ", workers / 1000, " us of CPU, the "
          "caller's thread ", caller / 1000, " us, the process ", process / 1000, " us");
  // The physics and rendering ran on the env threads: most of the process's CPU time is theirs.
  CHECK(workers > 0);
  CHECK(workers <= process);
  CHECK(workers > 2 * caller);
  CHECK(workers > process / 2);
}

TEST_CASE("success predicates on constructed states") {
  SUBCASE("a cube in the bowl is a success; held above it, it is not") {
    auto s = calm_state();
    const Task place{Family::place_bowl, Color::red, Color::red};
    s.cube[0] = {s.bowl.x + 0.01, s.bowl.y, bowl_base_top + h};
    CHECK(success(place, s));
    CHECK(dense_reward(place, s) == 1.f);
    s.cube[0].z = 0.12;
    s.grasped[0] = true;
    CHECK_FALSE(success(place, s));
    CHECK(dense_reward(place, s) < 1.f);
    s.cube[0] = {s.bowl.x + 0.07, s.bowl.y, bowl_base_top + h};
    s.grasped[0] = false;
    CHECK_FALSE(success(place, s));  // beside the bowl
  }
  SUBCASE("lift needs height and a grasp") {
    auto s = calm_state();
    const Task lift{Family::lift, Color::blue, Color::blue};
    s.cube[2].z = h + 0.07;
    CHECK_FALSE(success(lift, s));  // thrown up, not held
    s.grasped[2] = true;
    CHECK(success(lift, s));
    s.cube[2].z = h + 0.03;
    CHECK_FALSE(success(lift, s));
  }
  SUBCASE("push needs the cube in the zone and on the table") {
    auto s = calm_state();
    const Task push{Family::push, Color::green, Color::green};
    s.cube[1] = {s.zone.x + 0.03, s.zone.y - 0.02, h};
    CHECK(success(push, s));
    s.cube[1].z = h + 0.02;
    CHECK_FALSE(success(push, s));
  }
  SUBCASE("stack needs A on B, still and released") {
    auto s = calm_state();
    const Task stack{Family::stack, Color::red, Color::yellow};
    s.cube[0] = {s.cube[3].x + 0.01, s.cube[3].y, 3 * h};
    CHECK(success(stack, s));
    s.grasped[0] = true;
    CHECK_FALSE(success(stack, s));
    s.grasped[0] = false;
    s.cube_velocity[0] = {0.05, 0, 0};
    CHECK_FALSE(success(stack, s));
    s.cube_velocity[0] = {};
    s.cube[0].x += 0.04;
    CHECK_FALSE(success(stack, s));
  }
  SUBCASE("dense rewards stay below 1 until success and grow with progress") {
    auto s = calm_state();
    const Task lift{Family::lift, Color::red, Color::red};
    const float far = dense_reward(lift, s);
    s.tcp = s.cube[0];
    const float near = dense_reward(lift, s);
    s.grasped[0] = true;
    const float held = dense_reward(lift, s);
    s.cube[0].z = h + 0.03;
    const float half_up = dense_reward(lift, s);
    CHECK(far < near);
    CHECK(near < held);
    CHECK(held < half_up);
    CHECK(half_up < 1.f);
  }
}

TEST_CASE("a cube placed in the bowl in the simulation is a success there too") {
  auto scene = Scene::load();
  TabletopEnv env(scene);
  env.reset({{Family::place_bowl, Color::red, Color::red}, 42});
  const auto bowl = env.state().bowl;
  env.place_cube(Color::red, {bowl.x, bowl.y, bowl_base_top + h + 0.001}, 0.3);
  const std::array<float, action_size> open{0, 0, 0, 0, 0, 0, -1};
  const auto r = env.step(open.data());
  CHECK(r.success);
  CHECK(r.terminated);
  // Success on step 1 of 110 pays 1 for it and for each of the 109 steps left.
  CHECK(r.reward == 110.f);
}

TEST_CASE("images are not blank and each cube's colour appears where the cube is") {
  TabletopConfig c;
  c.image_size = 128;
  c.threads = 1;
  TabletopBatch batch(c, 1);
  batch.reset({11});
  const auto& env = batch.env(0);
  const mjModel* m = env.scene().model();
  const mjData* d = env.data();
  const int cam = env.scene().ids().front_camera;
  const int n = c.image_size;
  const uint8_t* front = batch.output().images.data();
  const uint8_t* wrist = front + n * n * 3;
  for (const uint8_t* image : {front, wrist}) {
    std::set<int> values(image, image + n * n * 3);
    CHECK(values.size() > 20);  // not one flat colour
  }
  const double f = (n / 2.0) / std::tan(m->cam_fovy[cam] * M_PI / 360.0);
  const double* p = d->cam_xpos + 3 * cam;
  const double* R = d->cam_xmat + 9 * cam;         // columns: camera x, y, z in world
  const int dominant[cube_count] = {0, 1, 2, -1};  // red, green, blue; yellow: red and green
  for (int cube = 0; cube < cube_count; ++cube) {
    CAPTURE(cube);
    const auto& q = env.state().cube[cube];
    const double w[3] = {q.x - p[0], q.y - p[1], q.z - p[2]};
    double local[3];
    for (int k = 0; k < 3; ++k) local[k] = w[0] * R[k] + w[1] * R[3 + k] + w[2] * R[6 + k];
    const int u = static_cast<int>(std::lround(n / 2.0 + f * local[0] / -local[2]));
    const int v = static_cast<int>(std::lround(n / 2.0 - f * local[1] / -local[2]));
    REQUIRE(u >= 1);
    REQUIRE(u < n - 1);
    REQUIRE(v >= 1);
    REQUIRE(v < n - 1);
    int rgb[3] = {0, 0, 0};
    for (int dv = -1; dv <= 1; ++dv)
      for (int du = -1; du <= 1; ++du)
        for (int k = 0; k < 3; ++k) rgb[k] += front[((v + dv) * n + (u + du)) * 3 + k];
    CAPTURE(rgb[0]);
    CAPTURE(rgb[1]);
    CAPTURE(rgb[2]);
    if (dominant[cube] >= 0) {
      for (int k = 0; k < 3; ++k)
        if (k != dominant[cube]) CHECK(rgb[dominant[cube]] > 2 * rgb[k]);
    } else {
      CHECK(rgb[0] > 2 * rgb[2]);
      CHECK(rgb[1] > 2 * rgb[2]);
    }
  }
}

// The front camera's image of env 0 with `groups` drawn (MuJoCo's renderer, as CameraRenderer),
// its primitives tessellated as `quality` says (default: as the scene says).
std::vector<uint8_t> front_image(const TabletopEnv& env, const std::array<bool, 4>& groups,
                                 const mjVisual* quality = nullptr) {
  const mjModel* m = env.scene().model();
  mjModel tessellated = *m;  // a shallow copy: mjr_makeContext reads vis.quality from it
  if (quality) {
    tessellated.vis.quality.numslices = quality->quality.numslices;
    tessellated.vis.quality.numstacks = quality->quality.numstacks;
    tessellated.vis.quality.numquads = quality->quality.numquads;
  }
  const int n = 64;
  mjvScene scene;
  mjrContext context;
  mjvOption option;
  mjvCamera camera;
  mjv_defaultScene(&scene);
  mjr_defaultContext(&context);
  mjv_defaultOption(&option);
  mjv_defaultCamera(&camera);
  for (int g = 0; g < 4; ++g) option.geomgroup[g] = groups[static_cast<size_t>(g)];
  camera.type = mjCAMERA_FIXED;
  camera.fixedcamid = env.scene().ids().front_camera;
  mjv_makeScene(m, &scene, 200);
  mjr_makeContext(&tessellated, &context, mjFONTSCALE_100);
  mjr_setBuffer(mjFB_OFFSCREEN, &context);
  scene.flags[mjRND_SHADOW] = scene.flags[mjRND_REFLECTION] = scene.flags[mjRND_SKYBOX] = 0;
  mjv_updateScene(m, const_cast<mjData*>(env.data()), &option, nullptr, &camera, mjCAT_ALL,
                  &scene);
  std::vector<uint8_t> pixels(n * n * 3);
  mjr_render({0, 0, n, n}, &scene, &context);
  mjr_readPixels(pixels.data(), nullptr, {0, 0, n, n}, &context);
  mjr_freeContext(&context);
  mjv_freeScene(&scene);
  return pixels;
}

// One env at a fixed start, without cameras of its own: the tests below render it themselves.
std::unique_ptr<TabletopBatch> env_at_a_fixed_start() {
  TabletopConfig c;
  c.threads = 1;
  c.front_camera = c.wrist_camera = false;
  auto batch = std::make_unique<TabletopBatch>(c, 1);
  batch->reset({5});
  return batch;
}

// Whether the pixel at byte `p` of two RGB images differs by more than 16 levels in a channel.
bool pixel_differs(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t p) {
  for (size_t k = 0; k < 3; ++k)
    if (std::abs(int(a[p + k]) - int(b[p + k])) > 16) return true;
  return false;
}

TEST_CASE("one mesh draws the bowl as its collision geoms are: the same pixels, fewer draws") {
  auto gl = GlContext::create_current();
  REQUIRE_MESSAGE(gl, gl.error().message());
  const auto batch = env_at_a_fixed_start();
  const auto& env = batch->env(0);
  // As rendered (groups 0-2: the mesh) and with the collision geoms (group 3) drawn instead of
  // group 1 (the mesh and the zone, which is visual only).
  const auto drawn = front_image(env, {true, true, true, false});
  const auto collision = front_image(env, {true, false, true, true});
  const auto without_bowl = front_image(env, {true, false, true, false});
  int differing = 0, bowl = 0;
  for (size_t p = 0; p < drawn.size(); p += 3) {
    auto differs = [p](const auto& a, const auto& b) { return pixel_differs(a, b, p); };
    bowl += differs(collision, without_bowl);
    differing += differs(drawn, collision) && !differs(drawn, without_bowl);  // not the zone
  }
  MESSAGE("the bowl covers ", bowl, " pixels of 64x64; ", differing, " differ, mesh to geoms");
  CHECK(bowl > 100);  // in view
  CHECK(differing <= bowl / 50);
  // Drawn: the table, palm, 2 fingers, 4 cubes, the bowl and the zone.
  const mjModel* m = env.scene().model();
  int visible = 0;
  for (int g = 0; g < m->ngeom; ++g)
    visible += m->geom_group[g] <= 2 && m->geom_rgba[4 * g + 3] > 0;
  CHECK(visible == 10);
}

TEST_CASE("coarse primitives draw what MuJoCo's default tessellation does") {
  auto gl = GlContext::create_current();
  REQUIRE_MESSAGE(gl, gl.error().message());
  const auto batch = env_at_a_fixed_start();
  const auto& env = batch->env(0);
  mjVisual fine;
  mj_defaultVisual(&fine);
  const auto& coarse = env.scene().model()->vis.quality;
  // The scene's own: fewer slices, stacks and box quads than MuJoCo's default (llvmpipe's cost
  // per geom is mostly its vertices).
  CHECK(coarse.numslices < fine.quality.numslices);
  CHECK(coarse.numquads < fine.quality.numquads);
  const std::array<bool, 4> groups{true, true, true, false};
  const auto drawn = front_image(env, groups);
  const auto reference = front_image(env, groups, &fine);
  const auto table_only = front_image(env, {true, false, false, false}, &fine);
  int objects = 0, differing = 0;
  for (size_t p = 0; p < drawn.size(); p += 3) {
    auto differs = [p](const auto& a, const auto& b) { return pixel_differs(a, b, p); };
    objects += differs(reference, table_only);
    differing += differs(drawn, reference);
  }
  MESSAGE("objects cover ", objects, " pixels of 64x64; ", differing, " differ by more than 16");
  CHECK(objects > 200);
  CHECK(differing <= objects / 25);  // 4 of 262 here: edges of the zone's disk and the boxes
}

TEST_CASE("evaluation initial states never coincide with training ones") {
  const auto mixed = suite("mixed").value();
  for (const auto& task : {Task{Family::lift, Color::red, Color::red},
                           Task{Family::stack, Color::blue, Color::green}}) {
    const auto eval = evaluation_states(task, 50);
    REQUIRE(eval.size() == 50);
    CHECK(evaluation_states(task, 50)[17].layout_seed == eval[17].layout_seed);  // fixed set
    std::vector<Layout> eval_layouts;
    for (const auto& s : eval) {
      CHECK(is_evaluation_seed(s.layout_seed));
      eval_layouts.push_back(sample_layout(task, s.layout_seed));
    }
    double closest = 1e9;
    for (uint64_t seed = 0; seed < 5000; ++seed) {
      const auto t = training_state(mixed, seed);
      CHECK_FALSE(is_evaluation_seed(t.layout_seed));
      const auto l = sample_layout(task, t.layout_seed);
      for (const auto& e : eval_layouts) {
        double d = 0;
        for (int c = 0; c < cube_count; ++c)
          d += std::hypot(l.cubes[c].x - e.cubes[c].x, l.cubes[c].y - e.cubes[c].y);
        closest = std::min(closest, d);
      }
    }
    CHECK(closest > 1e-6);
  }
  // Version 1 of the set is pinned: a change to the layout sampler must bump the version.
  const auto first = evaluation_states(all_tasks()[0], 1)[0];
  const auto l = sample_layout(first.task, first.layout_seed);
  CHECK(evaluation_set_version == 1);
  CHECK(first.layout_seed == 12294888617368283348ULL);
  CHECK(l.cubes[0].x == doctest::Approx(0.135320009012).epsilon(1e-9));
  CHECK(l.cubes[0].y == doctest::Approx(0.161344995970).epsilon(1e-9));
}

TEST_CASE("evaluation resets start every env from the suite's fixed evaluation states") {
  TabletopConfig c;
  c.suite = "lift";
  c.front_camera = c.wrist_camera = false;
  TabletopBatch batch(c, 6);
  batch.reset_for_evaluation(123);
  std::set<int> tasks;
  for (size_t i = 0; i < batch.size(); ++i) {
    const auto& start = batch.env(i).initial_state();
    CHECK(is_evaluation_seed(start.layout_seed));
    CHECK_FALSE(is_heldout(start.task));
    tasks.insert(task_id(start.task));
  }
  CHECK(tasks.size() == 3);  // lift's three training tasks
  CHECK(batch.env(0).initial_state().layout_seed ==
        evaluation_states(batch.env(0).task(), 1)[0].layout_seed);
  CHECK(batch.env(3).initial_state().layout_seed ==
        evaluation_states(batch.env(3).task(), 2)[1].layout_seed);
}

TEST_CASE("layouts keep cubes apart and push corridors clear") {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Task push{Family::push, Color(seed % 4), Color(seed % 4)};
    const auto l = sample_layout(push, seed);
    for (int a = 0; a < cube_count; ++a) {
      CHECK(std::hypot(l.cubes[a].x - l.bowl.x, l.cubes[a].y - l.bowl.y) >= 0.13);
      for (int b = 0; b < a; ++b)
        CHECK(std::hypot(l.cubes[a].x - l.cubes[b].x, l.cubes[a].y - l.cubes[b].y) >= 0.10);
    }
    const auto& c = l.cubes[seed % 4];
    const double range = std::hypot(l.zone.x - c.x, l.zone.y - c.y);
    CHECK(range >= 0.12 - 1e-9);
    CHECK(range <= 0.18 + 1e-9);
  }
}

TEST_CASE("instructions, vocabulary, suites") {
  CHECK(instruction({Family::stack, Color::red, Color::blue}) ==
        "stack the red cube on the blue cube");
  for (const auto& t : all_tasks()) {
    const auto tokens = tokenize(instruction(t));
    CHECK(tokens.size() == static_cast<size_t>(instruction_length));
    CHECK(std::count(tokens.begin(), tokens.end(), unknown_token) == 0);
    CHECK(parse_task(task_name(t)).value() == t);
  }
  CHECK(all_tasks().size() == 24);
  CHECK(tokenize("Pick up the purple cube")[3] == unknown_token);
  CHECK_FALSE(parse_task("lift/purple"));
  const auto mixed = suite("mixed").value();
  CHECK(mixed.train_tasks.size() + mixed.heldout_tasks.size() == 24);
  for (const auto& t : mixed.train_tasks) CHECK_FALSE(is_heldout(t));
  CHECK(suite("lift").value().heldout_tasks.size() == 1);
  CHECK(suite("stack").value().train_tasks.size() == 10);
  CHECK_FALSE(suite("kitchen"));
}

TEST_CASE("memory does not grow over 10,000 resets with rendering") {
  TabletopConfig c;
  c.threads = 1;
  TabletopBatch batch(c, 4);
  std::vector<uint64_t> seeds(4);
  auto resets = [&](uint64_t first, int count) {
    for (int r = 0; r < count; ++r) {
      for (size_t i = 0; i < 4; ++i) seeds[i] = first + 4 * static_cast<uint64_t>(r) + i;
      batch.reset(seeds);
    }
  };
  resets(0, 50);
  // Allocated bytes (all malloc arenas and mmapped blocks) show a leak; resident pages also move
  // when the allocator maps or trims an arena, so they are reported, not asserted.
  const auto heap_before = allocated_bytes();
  const long rss_before = resident_kib();
  resets(1000, 2500);
  const auto heap_after = allocated_bytes();
  const long rss_after = resident_kib();
  MESSAGE("allocated before ", heap_before, " B, after 10,000 resets ", heap_after, " B; RSS ",
          rss_before, " -> ", rss_after, " KiB");
  CHECK(heap_after < heap_before + 64 * 1024);
}

TEST_CASE("MuJoCo errors become exceptions; rendering without a GL context is an error value") {
  install_mujoco_error_hooks();
  CHECK_THROWS_WITH_AS(mju_error("deliberate"), "MuJoCo error: deliberate", MujocoError);
  auto scene = Scene::load();
  std::string message;
  std::thread([&] {  // a fresh thread has no current GL context
    auto r = CameraRenderer::create(*scene, CameraSettings{});
    message = r ? "created" : r.error().message();
  })
      .join();
  CHECK(message.find("cannot set up MuJoCo rendering") == 0);
}

TEST_CASE("bad tabletop settings are refused by name") {
  TabletopConfig c;
  c.suite = "kitchen";
  CHECK_THROWS_WITH_AS(TabletopBatch(c, 1),
                       "unknown tabletop suite 'kitchen' (lift, push, place_bowl, stack, mixed)",
                       std::invalid_argument);
  // Its settings belong to the env (envs/env_registry.hpp): an unknown physics is refused by
  // name, and a bad image size by the env's own check.
  dvla::envs::EnvConfig config;
  auto tabletop = dvla::envs::EnvRegistry::builtin().find("tabletop");
  REQUIRE(tabletop);
  const auto settings = (*tabletop)->settings(config);
  const auto* physics = dvla::find_setting(settings, "tabletop.physics");
  REQUIRE(physics);
  CHECK(dvla::set_setting(*physics, "exact").error().message() ==
        "config key 'tabletop.physics': 'exact' is not fast or reference");
  REQUIRE(dvla::set_setting(*physics, "reference"));
  CHECK(config.tabletop.physics == Physics::reference);
  config.tabletop.image_size = 8;
  CHECK((*tabletop)->validate(config).error().message() ==
        "tabletop.image_size must be in 16..512");
  c = TabletopConfig{};
  TabletopBatch b(c, 1);
  b.reset({1});
  std::array<float, action_size> nan{};
  nan[2] = std::nanf("");
  CHECK_THROWS_AS(b.step(nan.data()), std::invalid_argument);
}
