#pragma once
// EnvRegistry: the envs a run can name (config key `env`, --env NAME), each registered by its own
// code with everything that is its own — its settings (config keys "<name>.<setting>"), how they
// are checked, its spec, and how a batch of it is built — as EnvPool's and Sample Factory's envs
// register themselves. dvla's built-in envs are cartpole, pendulum, synthetic and tabletop.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/core/settings.hpp>
#include <dvla/envs/batched_env.hpp>

namespace dvla::envs {

struct EnvConfig;

struct EnvEntry {
  std::string name;
  // The rows of its settings in `config`; empty for an env without settings.
  std::function<std::vector<Setting>(EnvConfig& config)> settings;
  // Why its settings cannot work (empty error: they can); the values only, no env is built.
  std::function<Status(const EnvConfig& config)> validate;
  // Its observation and action spaces, cheaply (no renderer is set up for them).
  std::function<EnvSpec(const EnvConfig& config)> spec;
  // A batch of `envs` envs; throws std::invalid_argument or std::runtime_error naming the failure.
  std::function<std::unique_ptr<BatchedEnv>(const EnvConfig& config, size_t envs)> make;
};

class EnvRegistry {
 public:
  // dvla's envs, in a fixed order (the order of their keys in --help).
  static const EnvRegistry& builtin();

  // Adds `entry`; a name already taken, or an entry without spec or make, is an error.
  Status add(EnvEntry entry);
  // The entry of `name`; the error lists the names there are.
  Expected<const EnvEntry*> find(const std::string& name) const;
  const std::vector<EnvEntry>& entries() const { return entries_; }

 private:
  std::vector<EnvEntry> entries_;
};

}  // namespace dvla::envs
