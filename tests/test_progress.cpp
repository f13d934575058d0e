// Progress of long work as a person sees it (runtime/progress): plain lines off a terminal at
// their interval, one line redrawn in place on a terminal, other output kept above it.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <dvla/runtime/progress/progress_meter.hpp>

namespace {

using namespace dvla;

// What a meter writes, captured in memory, on a clock the test moves.
struct Captured {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* file = open_memstream(&data, &size);
  double clock = 0;
  ~Captured() {
    if (file) std::fclose(file);
    std::free(data);
  }
  ProgressOutput output(bool terminal) {
    ProgressOutput o;
    o.file = file;
    o.terminal = terminal;
    o.plain_every_s = 10;
    o.seconds = [this] { return clock; };
    return o;
  }
  std::string text() {
    std::fflush(file);
    return std::string(data, size);
  }
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("off a terminal: a plain line at each interval and one at the end") {
  Captured out;
  {
    ProgressMeter meter({"recorded", "episodes", 100}, out.output(false));
    for (int t = 1; t <= 35; ++t) {
      out.clock = t;
      meter.update(2 * static_cast<uint64_t>(t), "detail " + std::to_string(t));
    }
    CHECK(count(out.text(), "\n") == 3);  // at 10, 20 and 30 s
    meter.finish();
    meter.update(99);  // after the end: ignored
  }
  const auto text = out.text();
  INFO(text);
  CHECK(count(text, "\n") == 4);
  CHECK(text.find('\r') == std::string::npos);
  CHECK(text.find("recorded 20/100 episodes (20%), 2.0 episodes/s, 10 s elapsed, 40 s left; "
                  "detail 10\n") != std::string::npos);
  CHECK(text.find("recorded 60/100 episodes (60%)") != std::string::npos);
  CHECK(text.find("recorded 70/100 episodes in 35 s (2.0 episodes/s); detail 35\n") !=
        std::string::npos);
}

TEST_CASE("on a terminal: one line redrawn in place, notes above it, a newline at the end") {
  Captured out;
  ProgressMeter meter({"trained", "epochs", 10}, out.output(true));
  for (int i = 1; i <= 4; ++i) {
    out.clock = 0.25 * i;
    meter.update(static_cast<uint64_t>(i));
  }
  auto text = out.text();
  CHECK(count(text, "\r") == 4);
  CHECK(text.find('\n') == std::string::npos);
  CHECK(text.find("trained 4/10 epochs (40%), 4.0 epochs/s, 1.0 s elapsed, 1.5 s left\033[K") !=
        std::string::npos);
  meter.note("a row of a table");
  text = out.text();
  // The progress line is cleared, the row printed on its own line, the progress drawn again.
  CHECK(text.find("\r\033[Ka row of a table\n\rtrained 4/10") != std::string::npos);
  out.clock = 2;
  meter.finish();
  text = out.text();
  CHECK(text.substr(text.size() - 1) == "\n");
  CHECK(text.find("\rtrained 4/10 epochs in 2.0 s (2.0 epochs/s)\033[K\n") != std::string::npos);
}

TEST_CASE("without a total: no share and no time left; the destructor ends the line") {
  Captured out;
  {
    ProgressMeter meter({"soak:", "seconds", 0}, out.output(false));
    out.clock = 12;
    meter.update(12);
  }
  const auto text = out.text();
  INFO(text);
  CHECK(text.find("soak: 12 seconds, 1.0 seconds/s, 12 s elapsed\n") != std::string::npos);
  CHECK(text.find("left") == std::string::npos);
  CHECK(text.find('%') == std::string::npos);
  CHECK(text.find("soak: 12 seconds in 12 s") != std::string::npos);
}

TEST_CASE("a rate below one a second reads as the time each takes") {
  Captured out;
  ProgressMeter meter({"efficiency:", "runs", 60}, out.output(false));
  out.clock = 12;
  meter.update(5);
  CHECK(out.text() == "efficiency: 5/60 runs (8%), one per 2.4 s, 12 s elapsed, 2:12 left\n");
}

TEST_CASE("durations read as a person reads them") {
  CHECK(format_duration(0.029) == "0.03 s");
  CHECK(format_duration(4.24) == "4.2 s");
  CHECK(format_duration(42) == "42 s");
  CHECK(format_duration(187) == "3:07");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(-1) == "?");
}
