#pragma once
// A program a test runs to the end, under a deadline: coreutils' `timeout` ends it (TERM, then
// KILL 5 s later) when it runs too long, and the test then fails with an exception that names
// the command, its deadline and the end of its output, rather than hang until ctest's TIMEOUT.
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace dvla::test {

struct CommandOutcome {
  int status = -1;     // its exit status; -1 if it ended by a signal of its own
  std::string output;  // stdout and stderr together
};

// The last `n` characters of `text` (all of it when shorter).
inline std::string tail_of(const std::string& text, size_t n = 4000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

// Runs `command` (a program and its arguments, as the shell splits them, after any VAR=value
// settings) with stderr in its output; throws std::runtime_error if it ran past `deadline`.
inline CommandOutcome run_command(const std::string& command, std::chrono::seconds deadline) {
  const std::string line =
      "timeout --kill-after=5 " + std::to_string(deadline.count()) + " env " + command + " 2>&1";
  FILE* p = popen(line.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("cannot start: " + command);
  CommandOutcome o;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) o.output.append(buf.data(), n);
  const int raw = pclose(p);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  // timeout's own statuses: 124 when it ended the command, 137 when it had to kill it.
  if (o.status == 124 || o.status == 137)
    throw std::runtime_error(command + ": still running after its deadline of " +
                             std::to_string(deadline.count()) + " s, ended; its last output:\n" +
                             tail_of(o.output));
  return o;
}

}  // namespace dvla::test
