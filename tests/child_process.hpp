#pragma once
// ChildProcess (tests): a program run with its stdout and stderr in files, signalled and waited
// for under a deadline; one still running when the test ends is killed, so a failed check leaves
// nothing behind, and one that outlives its test binary (ended by ctest's TIMEOUT) dies with it.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "run_command.hpp"

namespace dvla::test {

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // `deadline`: how long it may run. wait() past it kills it and throws std::runtime_error naming
  // it and showing the end of its output (the test fails there, rather than hang).
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& output, std::chrono::seconds deadline = std::chrono::seconds(300))
      : name_(program.substr(program.rfind('/') + 1) + " (" + output + ")"),
        stdout_path_(output + ".out"),
        stderr_path_(output + ".err"),
        deadline_s_(deadline.count()),
        deadline_(Clock::now() + deadline) {
    // Emptied before the child starts: an earlier process's output at the same paths (a restarted
    // coordinator's) must not be read as this one's.
    std::ofstream(stdout_path_, std::ios::trunc);
    std::ofstream(stderr_path_, std::ios::trunc);
    // What the test printed and has not flushed would be flushed again by the child's freopen.
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ != 0) return;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!freopen(stdout_path_.c_str(), "w", stdout) || !freopen(stderr_path_.c_str(), "w", stderr))
      _exit(126);
    std::vector<char*> argv{const_cast<char*>(program.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  ~ChildProcess() {
    if (running()) kill_and_reap();
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exit_status_known_; }
  void signal(int sig) const {
    if (pid_ > 0) kill(pid_, sig);
  }
  // The exit status (128 + signal for a killed process). Past the deadline: killed, and
  // std::runtime_error.
  int wait() {
    while (!exit_status_known_) {
      if (Clock::now() > deadline_) {
        kill_and_reap();
        throw std::runtime_error(name_ + " still ran after its deadline of " +
                                 std::to_string(deadline_s_) + " s: killed. Its last stderr:\n" +
                                 tail_of(err()) + "\nIts last stdout:\n" + tail_of(out()));
      }
      reap(WNOHANG);
      if (!exit_status_known_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return exit_status_;
  }
  std::string out() const { return read(stdout_path_); }
  std::string err() const { return read(stderr_path_); }

  // Waits until `predicate(stderr text)` holds, the process ends, or `limit` passes (a test's
  // safety net, not a timing check); true when the predicate held.
  template <class Predicate>
  bool wait_for_err(Predicate predicate, std::chrono::seconds limit = std::chrono::seconds(300)) {
    return wait_for(stderr_path_, predicate, limit);
  }
  // The same for its stdout.
  template <class Predicate>
  bool wait_for_out(Predicate predicate, std::chrono::seconds limit = std::chrono::seconds(300)) {
    return wait_for(stdout_path_, predicate, limit);
  }

 private:
  template <class Predicate>
  bool wait_for(const std::string& path, Predicate predicate, std::chrono::seconds limit) {
    const auto until = std::min(deadline_, Clock::now() + limit);
    while (Clock::now() < until) {
      if (predicate(read(path))) return true;
      reap(WNOHANG);
      if (exit_status_known_) return predicate(read(path));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Takes its exit status if it has ended (`options`: WNOHANG) or once it ends (0).
  void reap(int options) {
    if (exit_status_known_ || pid_ <= 0) return;
    int status = 0;
    if (waitpid(pid_, &status, options) != pid_) return;
    exit_status_known_ = true;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  void kill_and_reap() {
    signal(SIGKILL);
    signal(SIGCONT);
    reap(0);
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string name_;
  pid_t pid_ = -1;
  std::string stdout_path_, stderr_path_;
  long deadline_s_;
  Clock::time_point deadline_;
  bool exit_status_known_ = false;
  int exit_status_ = -1;
};

}  // namespace dvla::test
