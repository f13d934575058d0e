// dvla-bench SUITE: measurements of dvla's parts, each in one run. A readable table on stdout;
// with --json, one JSON object as the last stdout line.
#include <fmt/core.h>

#include <map>
#include <string>

#include "apps/common/command_line.hpp"
#include "apps/dvla-bench/bench.hpp"
#include "runtime/blas_info.hpp"

namespace {

using dvla::apps::BenchOptions;
using Suite = dvla::Expected<nlohmann::json> (*)(const BenchOptions&);

const std::map<std::string, std::pair<Suite, const char*>>& suites() {
  static const std::map<std::string, std::pair<Suite, const char*>> s{
      {"env",
       {dvla::apps::bench_env,
        "tabletop env steps/s per thread and aggregate, with and "
        "without rendering; memory per env"}},
      {"expert",
       {dvla::apps::bench_expert,
        "scripted expert, random and zero-action success "
        "per tabletop task family"}},
  };
  return s;
}

dvla::Expected<double> positive_number(const std::string& text) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(x > 0))
    return dvla::Error("'" + text + "' is not a positive number");
  return x;
}

std::string help() {
  std::string text =
      "dvla-bench: measure dvla's parts.\n\nUsage: dvla-bench SUITE [--json] [--seconds S] "
      "[--episodes N]\n\nSuites:\n";
  for (const auto& [name, suite] : suites())
    text += fmt::format("  {:<8} {}\n", name, suite.second);
  text +=
      "\nFlags:\n"
      "  --json          print the figures as one JSON object on the last stdout line\n"
      "  --seconds S     seconds per timed figure (default 2)\n"
      "  --episodes N    episodes per family for the expert suite (default 200)\n";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  dvla::apps::CommandLine line(argc, argv);
  BenchOptions options;
  bool json = false;
  std::string suite;
  while (!line.done()) {
    const std::string word = line.take();
    if (word == "--help" || word == "-h") {
      fmt::print("{}", help());
      return 0;
    } else if (word == "--json") {
      json = true;
    } else if (word == "--seconds" || word == "--episodes") {
      auto v = line.value_of(word);
      auto x = v ? positive_number(*v) : dvla::Expected<double>(v.error());
      if (!x) {
        fmt::print(stderr, "dvla-bench: {}: {}\n", word, x.error().message());
        return 2;
      }
      if (word == "--seconds")
        options.seconds = *x;
      else
        options.episodes = static_cast<int>(*x);
    } else if (suite.empty() && word.rfind("--", 0) != 0) {
      suite = word;
    } else {
      fmt::print(stderr, "dvla-bench: unexpected argument '{}'\n{}", word, help());
      return 2;
    }
  }
  const auto found = suites().find(suite);
  if (found == suites().end()) {
    fmt::print(stderr, "dvla-bench: {}\n{}",
               suite.empty() ? "which suite?" : "unknown suite '" + suite + "'", help());
    return 2;
  }
  fmt::print("BLAS: {}\n", dvla::loaded_blas());
  try {
    auto result = found->second.first(options);
    if (!result) {
      fmt::print(stderr, "dvla-bench {}: {}\n", suite, result.error().message());
      return 1;
    }
    (*result)["suite"] = suite;
    (*result)["blas"] = dvla::loaded_blas();
    if (json) fmt::print("{}\n", result->dump());
  } catch (const std::exception& e) {
    fmt::print(stderr, "dvla-bench {}: {}\n", suite, e.what());
    return 1;
  }
  return 0;
}
