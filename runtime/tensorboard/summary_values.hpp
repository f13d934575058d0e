#pragma once
// What dvla writes to TensorBoard, as plain values (the protobuf classes stay inside the .cpp
// files): scalars, histograms and images under a tag, at one step of the run.
#include <cstdint>
#include <string>
#include <vector>

namespace dvla::tensorboard {

struct ScalarValue {
  std::string tag;  // "eval/mean_return": TensorBoard groups tags by their first part
  double value = 0;
};

// Buckets as TensorBoard's HistogramProto has them: bucket i holds `counts[i]` values in
// (limits[i - 1], limits[i]] (the first from the lowest double).
struct HistogramValue {
  std::string tag;
  double min = 0, max = 0, count = 0, sum = 0, sum_squares = 0;
  std::vector<double> limits, counts;
};

// An encoded image (PNG; an animated GIF plays in TensorBoard's image dashboard).
struct ImageValue {
  std::string tag;
  int height = 0, width = 0, channels = 3;
  std::string encoded;
};

struct Summary {
  std::vector<ScalarValue> scalars;
  std::vector<HistogramValue> histograms;
  std::vector<ImageValue> images;

  bool empty() const { return scalars.empty() && histograms.empty() && images.empty(); }
};

// One event of a file as read back: the file's version (its first event), a session start (a
// resumed run), or a summary.
struct EventRecord {
  double wall_time = 0;
  int64_t step = 0;
  std::string file_version;  // "brain.Event:2" in the first event; empty in the others
  bool session_start = false;
  Summary summary;
};

// A histogram of whole numbers: `counts[k]` values equal to k (the policy lag's distribution).
HistogramValue integer_histogram(std::string tag, const std::vector<uint64_t>& counts);

}  // namespace dvla::tensorboard
