#include "apps/common/signal_stop.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace dvla::apps {
namespace {

// The write end of the live SignalStop's pipe: all a signal handler can reach is process state,
// so this one value is it (-1 while no SignalStop lives).
std::atomic<int> handler_pipe{-1};

extern "C" void on_stop_signal(int sig) {
  const int saved_errno = errno;
  const auto byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] const auto written = write(handler_pipe.load(), &byte, 1);
  errno = saved_errno;
}

// Installs the handler for `sig` unless the program started with `sig` ignored.
void install(int sig, struct sigaction& previous) {
  sigaction(sig, nullptr, &previous);
  if (previous.sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // the program's own system calls go on undisturbed
  sigaction(sig, &action, nullptr);
}

std::string name_of(int sig) { return std::string("SIG") + sigabbrev_np(sig); }

}  // namespace

SignalStop::SignalStop(std::string program) : program_(std::move(program)) {
  if (pipe2(pipe_, O_CLOEXEC) != 0)
    throw std::runtime_error("SignalStop: cannot create a pipe: " +
                             std::string(std::strerror(errno)));
  int none = -1;
  if (!handler_pipe.compare_exchange_strong(none, pipe_[1])) {
    close(pipe_[0]);
    close(pipe_[1]);
    throw std::logic_error("SignalStop: another one already handles SIGINT and SIGTERM");
  }
  waiter_ = std::thread([this] { wait_for_signals(); });
  install(SIGINT, previous_int_);
  install(SIGTERM, previous_term_);
}

SignalStop::~SignalStop() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  const unsigned char wake = 0;  // not a signal: tells the waiter to end
  [[maybe_unused]] const auto written = write(pipe_[1], &wake, 1);
  waiter_.join();
  handler_pipe = -1;
  close(pipe_[0]);
  close(pipe_[1]);
}

std::string SignalStop::signal_name() const {
  const int sig = signal_.load();
  return sig == 0 ? std::string() : name_of(sig);
}

void SignalStop::wait_for_signals() {
  for (;;) {
    unsigned char byte = 0;
    const auto n = read(pipe_[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == 0) return;
    const int sig = byte;
    if (signal_.exchange(sig) != 0) {
      fmt::print(stderr, "{}: {} again: quitting at once\n", program_, name_of(sig));
      std::_Exit(128 + sig);
    }
    fmt::print(stderr,
               "{}: {}: stopping after the running update (final checkpoint, evaluation, "
               "summary); send it again to quit at once\n",
               program_, name_of(sig));
    request_.request();
  }
}

}  // namespace dvla::apps
