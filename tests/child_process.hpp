#pragma once
// ChildProcess (tests): a program run with its stdout and stderr in files, signalled and waited
// for; one still running when the test ends is killed, so a failed check leaves nothing behind.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace dvla::test {

class ChildProcess {
 public:
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& output)
      : stdout_path_(output + ".out"), stderr_path_(output + ".err") {
    pid_ = fork();
    if (pid_ != 0) return;
    if (!freopen(stdout_path_.c_str(), "w", stdout) || !freopen(stderr_path_.c_str(), "w", stderr))
      _exit(126);
    std::vector<char*> argv{const_cast<char*>(program.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  ~ChildProcess() {
    if (running()) {
      signal(SIGKILL);
      signal(SIGCONT);
      wait();
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exit_status_known_; }
  void signal(int sig) const {
    if (pid_ > 0) kill(pid_, sig);
  }
  // The exit status (128 + signal for a killed process).
  int wait() {
    if (exit_status_known_) return exit_status_;
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_status_known_ = true;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (predicate(read(path))) return true;
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_status_known_ = true;
        exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return predicate(read(path));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  pid_t pid_ = -1;
  std::string stdout_path_, stderr_path_;
  bool exit_status_known_ = false;
  int exit_status_ = -1;
};

}  // namespace dvla::test
