#pragma once
// MuJoCo reports errors through process-wide hooks; left alone, mju_error prints "Press Enter to
// exit" and exits the process. These hooks turn errors into C++ exceptions at the call that
// caused them, and warnings into per-thread counts an env can report.
#include <stdexcept>
#include <string>

namespace dvla::envs {

class MujocoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Installs the hooks once per process (MuJoCo offers only global ones); safe to call often.
void install_mujoco_error_hooks();

// Warnings MuJoCo raised on this thread since the last call, and the last one's text.
struct MujocoWarnings {
  int count = 0;
  std::string last;
};
MujocoWarnings take_mujoco_warnings();

}  // namespace dvla::envs
