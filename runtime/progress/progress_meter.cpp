#include <dvla/runtime/progress/progress_meter.hpp>

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cmath>

namespace dvla {
namespace {

constexpr double terminal_every_s = 0.2;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string format_rate(double per_second, const std::string& unit) {
  if (per_second >= 100) return fmt::format("{:.0f} {}/s", per_second, unit);
  if (per_second >= 1) return fmt::format("{:.1f} {}/s", per_second, unit);
  if (per_second > 0) return "one per " + format_duration(1 / per_second);
  return fmt::format("0 {}/s", unit);
}

}  // namespace

ProgressOutput standard_progress_output() {
  ProgressOutput out;
  out.terminal = isatty(fileno(stdout)) == 1;
  return out;
}

ProgressMeter::ProgressMeter(ProgressSetup setup, ProgressOutput output)
    : setup_(std::move(setup)), output_(std::move(output)) {
  if (!output_.seconds) output_.seconds = steady_seconds;
  start_ = last_write_ = now();
}

ProgressMeter::~ProgressMeter() { finish(); }

double ProgressMeter::now() const { return output_.seconds(); }

void ProgressMeter::update(uint64_t done, const std::string& detail) {
  if (finished_) return;
  done_ = done;
  detail_ = detail;
  const double t = now();
  const double every = output_.terminal ? terminal_every_s : output_.plain_every_s;
  if (t - last_write_ < every) return;
  last_write_ = t;
  write(figures(t - start_), false);
}

void ProgressMeter::note(const std::string& line) {
  if (output_.terminal && drawn_ && !finished_) {
    fmt::print(output_.file, "\r\033[K{}\n", line);
    write(figures(now() - start_), false);
    return;
  }
  fmt::print(output_.file, "{}\n", line);
  std::fflush(output_.file);
}

void ProgressMeter::finish() {
  if (finished_) return;
  finished_ = true;
  const double elapsed = now() - start_;
  std::string text = fmt::format("{} {}", setup_.label, done_);
  if (setup_.total > 0 && done_ != setup_.total) text += fmt::format("/{}", setup_.total);
  text += fmt::format(" {} in {}", setup_.unit, format_duration(elapsed));
  if (elapsed > 0 && done_ > 0)
    text += " (" + format_rate(static_cast<double>(done_) / elapsed, setup_.unit) + ")";
  if (!detail_.empty()) text += "; " + detail_;
  write(text, true);
}

std::string ProgressMeter::figures(double elapsed) const {
  std::string text = fmt::format("{} {}", setup_.label, done_);
  if (setup_.total > 0)
    text += fmt::format("/{} {} ({:.0f}%)", setup_.total, setup_.unit,
                        100.0 * static_cast<double>(done_) / static_cast<double>(setup_.total));
  else
    text += " " + setup_.unit;
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  text += ", " + format_rate(rate, setup_.unit) + ", " + format_duration(elapsed) + " elapsed";
  if (setup_.total > 0 && rate > 0 && done_ <= setup_.total)
    text += ", " + format_duration(static_cast<double>(setup_.total - done_) / rate) + " left";
  if (!detail_.empty()) text += "; " + detail_;
  return text;
}

void ProgressMeter::write(const std::string& text, bool last) {
  // On a terminal: back to the line's start, the text, then clear what a longer line left.
  if (output_.terminal) {
    fmt::print(output_.file, "\r{}\033[K{}", text, last ? "\n" : "");
    drawn_ = !last;
  } else {
    fmt::print(output_.file, "{}\n", text);
  }
  std::fflush(output_.file);
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  if (seconds < 1) return fmt::format("{:.2f} s", seconds);
  if (seconds < 10) return fmt::format("{:.1f} s", seconds);
  if (seconds < 60) return fmt::format("{:.0f} s", seconds);
  const auto whole = static_cast<uint64_t>(std::llround(seconds));
  const uint64_t h = whole / 3600, m = whole / 60 % 60, s = whole % 60;
  return h > 0 ? fmt::format("{}:{:02}:{:02}", h, m, s) : fmt::format("{}:{:02}", m, s);
}

}  // namespace dvla
