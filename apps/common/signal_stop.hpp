#pragma once
// SignalStop: while it lives, the first SIGINT (Ctrl-C) or SIGTERM becomes a StopRequest, so
// that a training run ends as at the end of its budget (final checkpoint, evaluation, summary),
// and the second one quits at once. A signal that was ignored when the program started (a
// background job's SIGINT) stays ignored. The handler only writes the signal's number to a pipe;
// a waiter thread reads it and does the rest outside the handler. One at a time per process.
#include <signal.h>

#include <atomic>
#include <string>
#include <thread>

#include "runtime/stop_request.hpp"

namespace dvla::apps {

class SignalStop {
 public:
  // `program` prefixes the line printed to stderr when a signal arrives.
  explicit SignalStop(std::string program);
  ~SignalStop();
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  const StopRequest& request() const { return request_; }
  // The signal that asked to stop ("SIGINT" or "SIGTERM"); empty while none has.
  std::string signal_name() const;

 private:
  void wait_for_signals();

  std::string program_;
  int pipe_[2] = {-1, -1};  // read end: the waiter; write end: the handler
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  StopRequest request_;
  std::atomic<int> signal_{0};
  std::thread waiter_;
};

}  // namespace dvla::apps
