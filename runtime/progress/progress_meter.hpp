#pragma once
// ProgressMeter: how far a long piece of work is, for the person waiting on it: done of total,
// the rate and the time left. On a terminal it is one line redrawn in place (at most 5 times a
// second); anywhere else (a log file, a pipe, CI) a plain line every `plain_every_s` seconds and
// one at the end, so that logs stay short.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace dvla {

struct ProgressSetup {
  std::string label;   // what the work does: "recorded", "trained", "evaluating"
  std::string unit;    // what is counted: "episodes"
  uint64_t total = 0;  // 0: not known (no time left shown)
};

struct ProgressOutput {
  std::FILE* file = stdout;
  bool terminal = false;            // redraw one line; else plain lines
  double plain_every_s = 10;        // seconds between plain lines
  std::function<double()> seconds;  // the clock; empty: a steady clock from construction
};

// stdout, drawn in place when it is a terminal.
ProgressOutput standard_progress_output();

class ProgressMeter {
 public:
  explicit ProgressMeter(ProgressSetup setup, ProgressOutput output = standard_progress_output());
  ~ProgressMeter();  // finishes the line if finish() was not called
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // `done` so far; `detail` follows the figures ("loss 0.0312").
  void update(uint64_t done, const std::string& detail = {});
  // A line of other output (a table's row) above the progress line, which is drawn again.
  void note(const std::string& line);
  // The last line (done, time taken, mean rate), once; later updates are ignored.
  void finish();

 private:
  double now() const;
  std::string figures(double elapsed) const;
  void write(const std::string& text, bool last);

  ProgressSetup setup_;
  ProgressOutput output_;
  double start_ = 0;
  double last_write_ = 0;
  uint64_t done_ = 0;
  std::string detail_;
  bool finished_ = false;
  bool drawn_ = false;  // a terminal's progress line is on screen
};

// A duration as a person reads it: "0.03 s", "4.2 s", "42 s", "3:07", "1:02:03".
std::string format_duration(double seconds);

}  // namespace dvla
