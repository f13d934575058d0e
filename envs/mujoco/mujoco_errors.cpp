#include <dvla/envs/mujoco/mujoco_errors.hpp>

#include <mujoco/mujoco.h>

#include <mutex>

namespace dvla::envs {
namespace {

thread_local MujocoWarnings warnings;

// Throwing through MuJoCo's C frames is safe on x86-64 Linux: Debian builds them with unwind
// tables, and an error leaves the mjData in a state the env discards (it resets).
void on_error(const char* message) { throw MujocoError(std::string("MuJoCo error: ") + message); }

void on_warning(const char* message) {
  ++warnings.count;
  warnings.last = message;
}

}  // namespace

void install_mujoco_error_hooks() {
  static std::once_flag once;
  std::call_once(once, [] {
    mju_user_error = on_error;
    mju_user_warning = on_warning;
  });
}

MujocoWarnings take_mujoco_warnings() {
  MujocoWarnings out = warnings;
  warnings = {};
  return out;
}

}  // namespace dvla::envs
