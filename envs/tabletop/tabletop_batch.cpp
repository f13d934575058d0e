#include <dvla/envs/tabletop/tabletop_batch.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <dvla/core/cpu_clock.hpp>
#include <dvla/envs/env_config.hpp>
#include <dvla/envs/env_registry.hpp>
#include <dvla/envs/tabletop/camera_renderer.hpp>
#include <dvla/envs/tabletop/gl_context.hpp>
#include <dvla/envs/tabletop/vocabulary.hpp>

namespace dvla::envs::tabletop {

// The env threads. Each owns a GL context and the renderers of its envs (a GL context and what
// was made in it stay on one thread), and runs a job for each of its envs when asked.
class TabletopBatch::Workers {
 public:
  Workers(const Scene& scene, const CameraSettings& cameras, size_t envs, int threads)
      : renderers_(envs) {
    slots_.resize(static_cast<size_t>(threads));
    for (size_t e = 0; e < envs; ++e) slots_[e % slots_.size()].envs.push_back(e);
    for (auto& slot : slots_)
      slot.thread = std::thread([this, &slot, &scene, cameras] { serve(slot, scene, cameras); });
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return ready_ == slots_.size(); });
    if (!setup_error_.empty()) {
      lock.unlock();
      stop();
      throw std::runtime_error("tabletop env threads: " + setup_error_);
    }
  }
  ~Workers() { stop(); }

  // Runs job(env) for every env, each on its own thread; rethrows the first failure.
  void run(const std::function<void(size_t)>& job) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = &job;
    error_.clear();
    remaining_ = slots_.size();
    ++generation_;
    start_.notify_all();
    done_.wait(lock, [&] { return remaining_ == 0; });
    job_ = nullptr;
    if (!error_.empty()) throw std::runtime_error(error_);
  }

  // Within a job only: renders env `env` with the renderer of its thread.
  Status render(size_t env, mjData* data, uint8_t* out) {
    return renderers_[env]->render(data, out);
  }
  bool renders() const { return !renderers_.empty() && renderers_[0] != nullptr; }
  // The env threads' CPU time in jobs: each thread reads its own clock after every job.
  int64_t cpu_ns() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int64_t total = 0;
    for (const auto& slot : slots_) total += slot.job_cpu_ns;
    return total;
  }
  int threads() const { return static_cast<int>(slots_.size()); }
  const std::string& renderer_name() const { return renderer_name_; }

 private:
  struct Slot {
    std::thread thread;
    std::vector<size_t> envs;
    int64_t job_cpu_ns = 0;  // guarded by mutex_
  };

  void serve(Slot& slot, const Scene& scene, const CameraSettings& cameras) {
    std::unique_ptr<GlContext> gl;
    std::string failure;
    if (cameras.count() > 0) {
      auto context = GlContext::create_current();
      if (!context) {
        failure = context.error().message();
      } else {
        gl = std::move(*context);
        for (size_t e : slot.envs) {
          auto r = CameraRenderer::create(scene, cameras);
          if (!r) {
            failure = r.error().message();
            break;
          }
          renderers_[e] = std::move(*r);
        }
      }
    }
    uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure.empty() && setup_error_.empty()) setup_error_ = failure;
      if (gl && renderer_name_.empty()) renderer_name_ = gl->renderer();
      ++ready_;
      done_.notify_all();
    }
    for (;;) {
      const std::function<void(size_t)>* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) break;
        seen = generation_;
        job = job_;
      }
      std::string error;
      const int64_t cpu_start = thread_cpu_ns();
      for (size_t e : slot.envs) {
        try {
          (*job)(e);
        } catch (const std::exception& ex) {
          error = "env " + std::to_string(e) + ": " + ex.what();
          break;
        }
      }
      const int64_t cpu = thread_cpu_ns() - cpu_start;
      std::lock_guard<std::mutex> lock(mutex_);
      slot.job_cpu_ns += cpu;
      if (!error.empty() && error_.empty()) error_ = error;
      if (--remaining_ == 0) done_.notify_all();
    }
    // Renderers free their GL objects, so they go while their context is still current here.
    for (size_t e : slot.envs) renderers_[e].reset();
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      start_.notify_all();
    }
    for (auto& slot : slots_)
      if (slot.thread.joinable()) slot.thread.join();
  }

  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<CameraRenderer>> renderers_;  // by env; used by its thread only
  mutable std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  uint64_t generation_ = 0;
  size_t remaining_ = 0, ready_ = 0;
  bool stopping_ = false;
  std::string error_, setup_error_, renderer_name_;
};

namespace {

int thread_count(int configured, size_t envs) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int wanted = configured > 0 ? configured : cores;
  return std::max(1, std::min(wanted, static_cast<int>(envs)));
}

}  // namespace

EnvSpec env_spec(const TabletopConfig& config) {
  EnvSpec spec;
  spec.name = "tabletop";
  spec.observation_shape = {proprio_size};
  spec.action.type = ActionSpace::Type::continuous;
  spec.action.dim = action_size;
  spec.max_episode_steps = horizon(Family::stack);
  const int cameras = int(config.front_camera) + int(config.wrist_camera);
  if (cameras > 0) spec.image_shape = {cameras, config.image_size, config.image_size, 3};
  spec.instruction_length = instruction_length;
  spec.vocabulary_size = static_cast<int64_t>(vocabulary().size());
  for (const auto& t : all_tasks()) spec.task_names.push_back(task_name(t));
  return spec;
}

TabletopBatch::TabletopBatch(const TabletopConfig& config, size_t envs) : config_(config) {
  if (envs == 0) throw std::invalid_argument("an env batch needs at least one env");
  auto s = tabletop::suite(config.suite);
  if (!s) throw std::invalid_argument(s.error().message());
  suite_ = *s;
  if (config.image_size < 16 || config.image_size > 512)
    throw std::invalid_argument("tabletop image size " + std::to_string(config.image_size) +
                                " is outside 16..512");
  if (config.threads < 0) throw std::invalid_argument("tabletop threads must not be negative");
  const auto scene = Scene::load(config.physics);
  CameraSettings cameras{config.image_size, config.front_camera, config.wrist_camera};

  spec_ = env_spec(config);

  for (size_t i = 0; i < envs; ++i) envs_.push_back(std::make_unique<TabletopEnv>(scene));
  seeds_.assign(envs, 0);
  returns_.assign(envs, 0.f);
  warnings_.assign(envs, 0);
  out_.resize(envs, spec_);
  workers_ = std::make_unique<Workers>(*scene, cameras, envs, thread_count(config.threads, envs));
}

TabletopBatch::~TabletopBatch() = default;

std::string TabletopBatch::renderer_name() const {
  return workers_->renders() ? workers_->renderer_name() : "none";
}
int TabletopBatch::threads() const { return workers_->threads(); }
int64_t TabletopBatch::worker_cpu_ns() const { return workers_->cpu_ns(); }

void TabletopBatch::observe(size_t i) {
  auto& env = *envs_[i];
  env.proprioception(out_.observations.data() + i * proprio_size);
  const auto image_bytes = static_cast<size_t>(spec_.image_size());
  if (image_bytes > 0)
    if (auto s = workers_->render(i, env.data(), out_.images.data() + i * image_bytes); !s)
      throw std::runtime_error(s.error().message());
}

void TabletopBatch::start(size_t i, const InitialState& s, uint64_t seed) {
  envs_[i]->reset(s);
  seeds_[i] = seed;
  returns_[i] = 0.f;
  const auto text = instruction(s.task);
  const auto tokens = tokenize(text);
  std::copy(tokens.begin(), tokens.end(), out_.instruction_tokens.begin() + i * instruction_length);
  out_.instructions[i] = text;
  out_.task_ids[i] = task_id(s.task);
  observe(i);
}

void TabletopBatch::reset(const std::vector<uint64_t>& seeds) {
  if (seeds.size() != envs_.size())
    throw std::invalid_argument("reset got " + std::to_string(seeds.size()) + " seeds for " +
                                std::to_string(envs_.size()) + " envs");
  workers_->run([&](size_t i) { start(i, training_state(suite_, seeds[i]), seeds[i]); });
  std::fill(out_.rewards.begin(), out_.rewards.end(), 0.f);
  std::fill(out_.terminated.begin(), out_.terminated.end(), 0);
  std::fill(out_.truncated.begin(), out_.truncated.end(), 0);
}

void TabletopBatch::reset_to(const std::vector<InitialState>& states) {
  if (states.size() != envs_.size())
    throw std::invalid_argument("reset_to got " + std::to_string(states.size()) + " states for " +
                                std::to_string(envs_.size()) + " envs");
  workers_->run([&](size_t i) { start(i, states[i], states[i].layout_seed); });
  std::fill(out_.rewards.begin(), out_.rewards.end(), 0.f);
  std::fill(out_.terminated.begin(), out_.terminated.end(), 0);
  std::fill(out_.truncated.begin(), out_.truncated.end(), 0);
}

void TabletopBatch::reset_for_evaluation(uint64_t) {
  const auto& tasks = suite_.train_tasks;
  std::vector<InitialState> states;
  for (size_t i = 0; i < envs_.size(); ++i) {
    const int k = static_cast<int>(i / tasks.size());
    states.push_back(evaluation_states(tasks[i % tasks.size()], k + 1)[static_cast<size_t>(k)]);
  }
  reset_to(states);
}

void TabletopBatch::step_env(size_t i, const float* action) {
  auto& env = *envs_[i];
  const TabletopStep r = env.step(action);
  out_.rewards[i] = r.reward;
  out_.terminated[i] = r.terminated;
  out_.truncated[i] = r.truncated;
  returns_[i] += r.reward;
  warnings_[i] += r.warnings;
  if (!r.terminated && !r.truncated) return observe(i);
  out_.episode_ends[i] = EpisodeEnd{returns_[i], env.steps(), r.success};
  env.proprioception(out_.final_observations.data() + i * proprio_size);
  // A truncated episode is bootstrapped from its last observation: render it before the reset.
  const auto image_bytes = static_cast<size_t>(spec_.image_size());
  if (r.truncated && image_bytes > 0)
    if (auto s = workers_->render(i, env.data(), out_.final_images.data() + i * image_bytes); !s)
      throw std::runtime_error(s.error().message());
  const uint64_t seed = next_seed(seeds_[i]);
  start(i, training_state(suite_, seed), seed);
}

void TabletopBatch::step(const float* actions) {
  check_actions(spec_.action, actions, envs_.size());
  workers_->run([&](size_t i) { step_env(i, actions + i * action_size); });
}

long TabletopBatch::warnings() const {
  long total = 0;
  for (auto w : warnings_) total += w;
  return total;
}

}  // namespace dvla::envs::tabletop

namespace dvla::envs::tabletop {

EnvEntry tabletop_env() {
  EnvEntry e;
  e.name = "tabletop";
  e.settings = [](EnvConfig& config) {
    auto& c = config.tabletop;
    return std::vector<Setting>{
        {"tabletop.suite", "tabletop suite: lift | push | place_bowl | stack | mixed", &c.suite},
        {"tabletop.image_size", "tabletop camera images are this many pixels square (64 or 128)",
         &c.image_size},
        {"tabletop.front_camera", "tabletop: render the front camera", &c.front_camera},
        {"tabletop.wrist_camera", "tabletop: render the wrist camera", &c.wrist_camera},
        {"tabletop.threads",
         "tabletop env threads per batch, each with a GL context (0: one per core)", &c.threads},
        {"tabletop.physics", "tabletop physics: fast (4 ms x 12) | reference (2 ms x 25)",
         enum_field(&c.physics)},
    };
  };
  e.validate = [](const EnvConfig& config) -> Status {
    const auto& t = config.tabletop;
    if (auto s = suite(t.suite); !s) return s.error();
    if (t.image_size < 16 || t.image_size > 512)
      return Error("tabletop.image_size must be in 16..512");
    if (t.threads < 0) return Error("tabletop.threads must not be negative");
    return Status::ok();
  };
  e.spec = [](const EnvConfig& config) { return env_spec(config.tabletop); };
  e.make = [](const EnvConfig& config, size_t n) -> std::unique_ptr<BatchedEnv> {
    return std::make_unique<TabletopBatch>(config.tabletop, n);
  };
  return e;
}

}  // namespace dvla::envs::tabletop
