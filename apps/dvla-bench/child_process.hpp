#pragma once
// ChildProcess: a program started with pipes to its stdin and from its stdout. Closing its stdin
// (on destruction) tells it to end; one that does not within a moment is killed, so a benchmark
// never leaves a process behind.
#include <sys/types.h>

#include <cstdio>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla::apps {

class ChildProcess {
 public:
  // Where the child's stderr goes: this process's, the pipe read_line() reads, or nowhere.
  enum class Stderr { inherit, with_stdout, discard };

  // Starts `program` with `args` (argv[1...]). Throws std::runtime_error when it cannot.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               Stderr stderr_to = Stderr::inherit);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next line the child printed; an error when it ended without one.
  Expected<std::string> read_line();

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  FILE* stdout_ = nullptr;
};

// `program` in the directory of this one: dvla-ppo and dvla-node sit beside dvla-bench (build
// tree and install).
std::string sibling(const std::string& program);

}  // namespace dvla::apps
