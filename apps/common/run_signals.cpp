#include "common/run_signals.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace dvla::apps {
namespace {

// The write end of the live RunSignals' pipe: all a signal handler can reach is process state,
// so this one value is it (-1 while no RunSignals lives).
std::atomic<int> handler_pipe{-1};

extern "C" void on_signal(int sig) {
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
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // the program's own system calls go on undisturbed
  sigaction(sig, &action, nullptr);
}

std::string name_of(int sig) { return std::string("SIG") + sigabbrev_np(sig); }

// Outside a RunSignals' life — above all before main, while LibTorch's static initialisers run
// for most of a second — a stop signal quits with a line instead of the silent default death:
// nothing has started that a stop could save. Only async-signal-safe calls.
extern "C" void on_signal_outside_a_run(int sig) {
  static const char interrupted[] =
      "dvla: SIGINT while no run is going: quitting (nothing to save)\n";
  static const char terminated[] =
      "dvla: SIGTERM while no run is going: quitting (nothing to save)\n";
  const bool is_int = sig == SIGINT;
  [[maybe_unused]] const auto written =
      write(STDERR_FILENO, is_int ? interrupted : terminated,
            (is_int ? sizeof(interrupted) : sizeof(terminated)) - 1);
  _exit(128 + sig);
}

void install_outside_a_run(int, char**, char**) {
  for (const int sig : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    sigaction(sig, nullptr, &current);
    if (current.sa_handler == SIG_IGN) continue;  // a background job's: stays ignored
    struct sigaction action {};
    action.sa_handler = on_signal_outside_a_run;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

// .preinit_array: the dynamic linker calls it once the program is loaded, before any library's
// initialiser (in the apps that link this file: those that use RunSignals).
[[gnu::section(".preinit_array"), gnu::used]] void (*const install_at_start)(int, char**, char**) =
    install_outside_a_run;

}  // namespace

RunSignals::RunSignals(std::string program) : program_(std::move(program)) {
  if (pipe2(pipe_, O_CLOEXEC) != 0)
    throw std::runtime_error("RunSignals: cannot create a pipe: " +
                             std::string(std::strerror(errno)));
  int none = -1;
  if (!handler_pipe.compare_exchange_strong(none, pipe_[1])) {
    close(pipe_[0]);
    close(pipe_[1]);
    throw std::logic_error("RunSignals: another one already handles SIGINT, SIGTERM and SIGUSR1");
  }
  waiter_ = std::thread([this] { wait_for_signals(); });
  install(SIGINT, previous_int_);
  install(SIGTERM, previous_term_);
  install(SIGUSR1, previous_usr1_);
}

RunSignals::~RunSignals() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGUSR1, &previous_usr1_, nullptr);
  const unsigned char wake = 0;  // not a signal: tells the waiter to end
  [[maybe_unused]] const auto written = write(pipe_[1], &wake, 1);
  waiter_.join();
  handler_pipe = -1;
  close(pipe_[0]);
  close(pipe_[1]);
}

std::string RunSignals::stop_signal_name() const {
  const int sig = stop_signal_.load();
  return sig == 0 ? std::string() : name_of(sig);
}

void RunSignals::wait_for_signals() {
  for (;;) {
    unsigned char byte = 0;
    const auto n = read(pipe_[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == 0) return;
    const int sig = byte;
    if (sig != SIGUSR1) {
      on_stop_signal(sig);
      continue;
    }
    fmt::print(stderr,
               "{}: SIGUSR1: evaluating the latest weights (its result follows as an 'evaluation "
               "of version' line and in progress.jsonl)\n",
               program_);
    requests_.request_evaluation();
  }
}

void RunSignals::on_stop_signal(int sig) {
  if (stop_signal_.exchange(sig) != 0) {
    fmt::print(stderr, "{}: {} again: quitting at once\n", program_, name_of(sig));
    std::_Exit(128 + sig);
  }
  fmt::print(stderr,
             "{}: {}: stopping after the running update (final checkpoint, evaluation, "
             "summary); send it again to quit at once\n",
             program_, name_of(sig));
  requests_.request_stop();
}

}  // namespace dvla::apps
