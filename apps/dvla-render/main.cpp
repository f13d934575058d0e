// dvla-render: one episode of the tabletop suite as a PNG strip — the instruction and outcome on
// top, then the front camera's frames and under them the wrist camera's — for a task, a seed and
// a policy (the scripted expert, random or zero actions, or a trained run's weights).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <variant>

#include <dvla/envs/tabletop/camera_renderer.hpp>
#include <dvla/envs/tabletop/gl_context.hpp>
#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/tabletop_env.hpp>
#include <dvla/envs/tabletop/vocabulary.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/checkpoints/weights_file.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/video/gif_file.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>
#include "common/command_line.hpp"
#include "dvla-render/png_writer.hpp"

namespace {

using namespace dvla;
using namespace dvla::envs::tabletop;
using Action = std::array<float, action_size>;
using Controller = std::function<Action(TabletopEnv&)>;

constexpr int max_frames = 16;
constexpr int title_height = 24, label_height = 20, gap = 2;

struct Options {
  std::string task = "lift/red";
  uint64_t seed = 1;
  int eval_state = -1;  // >= 0: that evaluation state instead of a seed
  std::string policy = "scripted";
  int size = 128;
  int every = 0;  // 0: spread max_frames over the episode
  std::string out;  // empty: episode.png, or episode.gif with --gif
  bool gif = false;
};

// The flags, or the status to exit with (after --help, or a refused command line).
std::variant<Options, int> parse(int argc, char** argv) {
  Options o;
  CLI::App app(apps::app_description("dvla-render: write an episode of the tabletop suite as a "
                                     "PNG strip, or every step as an animated GIF."),
               "dvla-render");
  apps::use_dvla_help_format(app);
  app.add_option("--task", o.task,
                 apps::flag_help("lift/red, push/blue, place_bowl/green, stack/red-on-blue, ..."))
      ->type_name("NAME")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "layout seed of a training start")
      ->type_name("S")
      ->capture_default_str();
  app.add_option("--eval-state", o.eval_state, "the task's K-th fixed evaluation state instead")
      ->type_name("K")
      ->check(CLI::Range(0, 9999));
  app.add_option("--policy", o.policy,
                 apps::flag_help("scripted | random | zero | RUN_DIR (a dvla-ppo --logdir with "
                                 "config.txt and final.weights)"))
      ->type_name("P")
      ->capture_default_str();
  app.add_option("--size", o.size, "camera images N x N pixels")
      ->type_name("N")
      ->check(CLI::Range(16, 512))
      ->capture_default_str();
  app.add_option("--every", o.every, "one frame every N steps (default: up to 16 frames)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--gif", o.gif,
               apps::flag_help("an animated GIF of every step instead (front and wrist side by "
                               "side under the instruction and outcome, 10 frames a second)"));
  app.add_option("--out", o.out, "output file (default episode.png, with --gif episode.gif)")
      ->type_name("FILE");
  if (auto status = apps::parse_command_line(app, argc, argv)) return *status;
  if (o.out.empty()) o.out = o.gif ? "episode.gif" : "episode.png";
  return o;
}

// The policy of a dvla-ppo run: its config builds the model, its final weights fill it. It sees
// what it was trained on: images rendered with the run's camera settings, and the instruction.
Expected<Controller> trained_policy(const std::string& dir, const Scene& scene) {
  Config config;
  const auto root = std::filesystem::path(dir);
  if (auto s = load_config_file(config, (root / "config.txt").string()); !s) return s.error();
  if (config.env.name != "tabletop")
    return Error("run '" + dir + "' trained on env '" + config.env.name + "', not tabletop");
  auto weights = load_weights((root / "final.weights").string());
  if (!weights) return weights.error();
  const auto spec = envs::spec_of(config.env);
  std::shared_ptr<Policy> policy = default_graph_parts(config).make_policy(spec);
  auto flat = std::make_shared<FlatParameters>(*policy);
  if (auto s = flat->load(*msg::read(*weights)); !s) return s.error();
  const auto& t = config.env.tabletop;
  std::shared_ptr<CameraRenderer> eyes;
  if (spec.image_size() > 0) {
    auto r = CameraRenderer::create(scene, {t.image_size, t.front_camera, t.wrist_camera});
    if (!r) return r.error();
    eyes = std::move(*r);
  }
  auto generator = std::make_shared<at::Generator>(at::make_generator<at::CPUGeneratorImpl>(1));
  return Controller([policy, flat, eyes, spec, generator](TabletopEnv& env) {
    envs::BatchOutput seen;
    seen.resize(1, spec);
    env.proprioception(seen.observations.data());
    if (eyes)
      if (auto s = eyes->render(env.data(), seen.images.data()); !s)
        throw std::runtime_error(s.error().message());
    const auto tokens = tokenize(instruction(env.task()));
    std::copy(tokens.begin(), tokens.end(), seen.instruction_tokens.begin());
    const auto a = policy->act(policy_input(seen, spec), /*deterministic=*/true, *generator)
                       .actions.contiguous();
    Action out;
    std::copy_n(a.data_ptr<float>(), action_size, out.begin());
    return out;
  });
}

Expected<Controller> controller(const Options& o, const Task& task, const Scene& scene) {
  if (o.policy == "scripted") {
    auto expert = std::make_shared<ScriptedExpert>(task);
    return Controller([expert](TabletopEnv& env) { return expert->act(env.state()); });
  }
  if (o.policy == "random") {
    auto rng = std::make_shared<std::mt19937>(static_cast<unsigned>(o.seed));
    return Controller([rng](TabletopEnv&) {
      std::uniform_real_distribution<float> u(-1, 1);
      Action a;
      for (auto& v : a) v = u(*rng);
      return a;
    });
  }
  if (o.policy == "zero") return Controller([](TabletopEnv&) { return Action{}; });
  return trained_policy(o.policy, scene);
}

// Pastes a w x h RGB image into the canvas at (x, y).
void paste(std::vector<uint8_t>& canvas, int canvas_width, const uint8_t* image, int x, int y,
           int w, int h) {
  for (int row = 0; row < h; ++row)
    std::copy_n(image + static_cast<size_t>(row) * w * 3, w * 3,
                canvas.begin() + (static_cast<size_t>(y + row) * canvas_width + x) * 3);
}

// --gif: every step's front and wrist images side by side under the title, as an animated GIF.
bool write_episode_gif(const Options& o, CameraRenderer& renderer, const std::string& title,
                       const std::vector<std::vector<uint8_t>>& frames) {
  const int width = 2 * o.size + gap, height = title_height + o.size;
  const int title_width = std::min(width, renderer.settings().caption_width);
  std::vector<uint8_t> band(static_cast<size_t>(title_width) * title_height * 3);
  if (auto s = renderer.caption(title, title_width, title_height, band.data()); !s)
    return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), false;
  const size_t frame_bytes = static_cast<size_t>(o.size) * o.size * 3;
  std::vector<RgbImage> video;
  for (const auto& f : frames) {
    RgbImage image(width, height);
    std::fill(image.pixels.begin(), image.pixels.end(), 20);
    paste(image.pixels, width, band.data(), 0, 0, title_width, title_height);
    paste(image.pixels, width, f.data(), 0, title_height, o.size, o.size);
    paste(image.pixels, width, f.data() + frame_bytes, o.size + gap, title_height, o.size, o.size);
    video.push_back(std::move(image));
  }
  if (auto s = write_gif_file(o.out, video, 10); !s)
    return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), false;
  fmt::print("{}: {} frames of {}x{} pixels (front left, wrist right)\n", o.out, video.size(),
             width, height);
  return true;
}

int render(const Options& o) {
  auto task = parse_task(o.task);
  if (!task) return fmt::print(stderr, "dvla-render: {}\n", task.error().message()), 2;
  const InitialState start = o.eval_state >= 0 ? evaluation_states(*task, o.eval_state + 1).back()
                                               : InitialState{*task, o.seed};
  auto gl = GlContext::create_current();
  if (!gl) return fmt::print(stderr, "dvla-render: {}\n", gl.error().message()), 1;
  auto scene = Scene::load();
  auto act = controller(o, *task, *scene);
  if (!act) return fmt::print(stderr, "dvla-render: {}\n", act.error().message()), 2;
  TabletopEnv env(scene);
  env.reset(start);

  const int frame_bytes = o.size * o.size * 3;
  std::vector<std::vector<uint8_t>> frames;  // front and wrist of every step, step 0 first
  std::vector<int> steps;
  CameraSettings cameras{o.size, true, true, std::min(2048, max_frames * (o.size + gap))};
  auto renderer = CameraRenderer::create(*scene, cameras);
  if (!renderer) return fmt::print(stderr, "dvla-render: {}\n", renderer.error().message()), 1;
  auto capture = [&] {
    frames.emplace_back(2 * frame_bytes);
    steps.push_back(env.steps());
    return (*renderer)->render(env.data(), frames.back().data());
  };
  if (auto s = capture(); !s)
    return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), 1;
  TabletopStep r;
  do {
    const Action a = (*act)(env);
    r = env.step(a.data());
    if (auto s = capture(); !s)
      return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), 1;
  } while (!r.terminated && !r.truncated);

  const std::string outcome = r.success ? fmt::format("success at step {}", env.steps())
                                        : fmt::format("no success in {} steps", env.steps());
  const std::string title =
      fmt::format("\"{}\"   {}, {} {}, {}: {}", instruction(*task), o.task,
                  o.eval_state >= 0 ? "eval state" : "seed",
                  o.eval_state >= 0 ? uint64_t(o.eval_state) : o.seed, o.policy, outcome);
  if (o.gif) {
    if (!write_episode_gif(o, **renderer, title, frames)) return 1;
    fmt::print("{}: {}\n", o.out, outcome);
    return 0;
  }

  // Which frames make the strip: every `every` steps, always the last.
  const int total = static_cast<int>(frames.size());
  const int every =
      o.every > 0 ? o.every : std::max(1, (total + max_frames - 2) / (max_frames - 1));
  std::vector<int> picked;
  for (int i = 0; i < total; i += every) picked.push_back(i);
  if (picked.back() != total - 1) picked.push_back(total - 1);
  if (static_cast<int>(picked.size()) > max_frames)
    picked.erase(picked.begin() + max_frames - 1, picked.end() - 1);

  const int cell = o.size + gap;
  const int width = std::max(static_cast<int>(picked.size()) * cell - gap, 256);
  const int height = title_height + label_height + 2 * o.size + gap;
  std::vector<uint8_t> canvas(static_cast<size_t>(width) * height * 3, 20);
  const int title_width = std::min(width, cameras.caption_width);
  std::vector<uint8_t> band(static_cast<size_t>(title_width) * title_height * 3);
  if (auto s = (*renderer)->caption(title, title_width, title_height, band.data()); !s)
    return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), 1;
  paste(canvas, width, band.data(), 0, 0, title_width, title_height);
  std::vector<uint8_t> label(static_cast<size_t>(o.size) * label_height * 3);
  for (size_t k = 0; k < picked.size(); ++k) {
    const int x = static_cast<int>(k) * cell;
    if (auto s = (*renderer)->caption(fmt::format("t={}", steps[picked[k]]), o.size, label_height,
                                      label.data());
        !s)
      return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), 1;
    paste(canvas, width, label.data(), x, title_height, o.size, label_height);
    const uint8_t* f = frames[picked[k]].data();
    paste(canvas, width, f, x, title_height + label_height, o.size, o.size);
    paste(canvas, width, f + frame_bytes, x, title_height + label_height + o.size + gap, o.size,
          o.size);
  }
  if (auto s = apps::write_png(o.out, width, height, canvas.data()); !s)
    return fmt::print(stderr, "dvla-render: {}\n", s.error().message()), 1;
  fmt::print("{}: {} ({} frames of {} steps; front above, wrist below)\n", o.out, outcome,
             picked.size(), env.steps());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    auto parsed = parse(argc, argv);
    if (const int* status = std::get_if<int>(&parsed)) return *status;
    return render(std::get<Options>(parsed));
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-render: {}\n", e.what());
    return 1;
  }
}
