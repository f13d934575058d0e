#include "dvla-bench/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace dvla::apps {

std::string sibling(const std::string& program) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(program) : self.parent_path() / program).string();
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args,
                           Stderr stderr_to) {
  int in[2], out[2];
  if (pipe(in) != 0) throw std::runtime_error("cannot create a pipe for " + program);
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    throw std::runtime_error("cannot create a pipe for " + program);
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (stderr_to == Stderr::with_stdout) dup2(out[1], 2);
    if (stderr_to == Stderr::discard) {
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 2);
    }
    close(in[1]);
    close(out[0]);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (pid_ < 0) {
    close(in[1]);
    close(out[0]);
    throw std::runtime_error("cannot start " + program);
  }
  stdin_ = in[1];
  stdout_ = fdopen(out[0], "r");
}

ChildProcess::~ChildProcess() {
  close(stdin_);
  if (stdout_) fclose(stdout_);
  int status = 0;
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid_, &status, WNOHANG) != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
}

Expected<std::string> ChildProcess::read_line() {
  std::string line;
  for (int c = fgetc(stdout_); c != EOF && c != '\n'; c = fgetc(stdout_))
    line.push_back(static_cast<char>(c));
  if (line.empty() && feof(stdout_)) return Error("the child process ended without a word");
  return line;
}

}  // namespace dvla::apps
