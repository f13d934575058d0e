#include <dvla/envs/env_registry.hpp>

#include <dvla/envs/cartpole.hpp>
#include <dvla/envs/inverted_pendulum.hpp>
#include <dvla/envs/pendulum.hpp>
#include <dvla/envs/synthetic.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>

namespace dvla::envs {
namespace {

EnvRegistry make_builtin() {
  EnvRegistry r;
  for (auto entry : {cartpole_env(), pendulum_env(), inverted_pendulum_env(), synthetic_env(),
                     tabletop::tabletop_env()})
    if (auto added = r.add(std::move(entry)); !added) throw Failure(added.error());
  return r;
}

}  // namespace

const EnvRegistry& EnvRegistry::builtin() {
  static const EnvRegistry registry = make_builtin();  // immutable once built
  return registry;
}

Status EnvRegistry::add(EnvEntry entry) {
  if (entry.name.empty()) return Error("an env needs a name");
  if (!entry.spec || !entry.make) return Error("env '" + entry.name + "' lacks spec or make");
  for (const auto& e : entries_)
    if (e.name == entry.name) return Error("env '" + entry.name + "' is registered already");
  entries_.push_back(std::move(entry));
  return Status::ok();
}

Expected<const EnvEntry*> EnvRegistry::find(const std::string& name) const {
  std::string known;
  for (const auto& e : entries_) {
    if (e.name == name) return &e;
    known += (known.empty() ? "" : ", ") + e.name;
  }
  return Error("env '" + name + "' is not available (" + known + ")");
}

}  // namespace dvla::envs
