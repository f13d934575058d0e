#pragma once
// RunSignals: while it lives, signals become RunRequests of a training run. The first SIGINT
// (Ctrl-C) or SIGTERM asks the run to stop as at the end of its budget (final checkpoint,
// evaluation, summary), the second quits at once; every SIGUSR1 asks for an evaluation of the
// latest weights. A signal that was ignored when the program started (a background job's SIGINT)
// stays ignored. The handler only writes the signal's number to a pipe; a waiter thread reads it
// and does the rest outside the handler. One at a time per process. Outside its life (from the
// program's start, before main) a SIGINT or SIGTERM quits with a line saying so.
#include <signal.h>

#include <atomic>
#include <string>
#include <thread>

#include <dvla/runtime/run/run_requests.hpp>

namespace dvla::apps {

class RunSignals {
 public:
  // `program` prefixes the line printed to stderr when a signal arrives.
  explicit RunSignals(std::string program);
  ~RunSignals();
  RunSignals(const RunSignals&) = delete;
  RunSignals& operator=(const RunSignals&) = delete;

  const RunRequests& requests() const { return requests_; }
  // The signal that asked to stop ("SIGINT" or "SIGTERM"); empty while none has.
  std::string stop_signal_name() const;

 private:
  void wait_for_signals();
  void on_stop_signal(int sig);

  std::string program_;
  int pipe_[2] = {-1, -1};  // read end: the waiter; write end: the handler
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  struct sigaction previous_usr1_ {};
  RunRequests requests_;
  std::atomic<int> stop_signal_{0};
  std::thread waiter_;
};

}  // namespace dvla::apps
