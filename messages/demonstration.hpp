#pragma once
// Demonstrations: recorded episodes (observations and actions) for supervised fine-tuning, and
// the header and footer of the dataset file that holds them.
#include <cstdint>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/observations.hpp>

namespace dvla::msg {

struct DatasetHeader {
  static constexpr const char* format_name = "dvla-demonstrations";
  static constexpr uint32_t current_version = 2;  // 1: files without a footer
  std::string format = format_name;
  uint32_t version = current_version;
  std::string env, suite, source;
  uint32_t image_size = 0;
  bool front_camera = false, wrist_camera = false;
};

struct Demonstration {
  std::string task, instruction;
  uint64_t layout_seed = 0;
  Observations observations;  // leading dimension [T]
  TensorRef<float> actions;   // [T, action_dim]
  bool success = false;

  int64_t steps() const { return actions.rank() ? actions.dim(0) : 0; }
};

// The end of a dataset file: the episodes before it and the checksum of every byte before it.
struct DatasetFooter {
  static constexpr const char* magic_text = "dvla-demonstrations-end";
  uint64_t episodes = 0;
  uint64_t checksum = 0;
};

DatasetHeaderFrame build(const DatasetHeader& m);
Expected<DatasetHeader> read(const DatasetHeaderFrame& f);  // also checks format and version
DatasetFooterFrame build(const DatasetFooter& m);
Expected<DatasetFooter> read(const DatasetFooterFrame& f);  // also checks its magic
DemonstrationFrame build(const Demonstration& m);
Expected<Demonstration> read(const DemonstrationFrame& f);

}  // namespace dvla::msg
