#pragma once
// Demonstration dataset files (docs/datasets.md): a DatasetHeader message, then one Demonstration
// message per episode, then a DatasetFooter (the episode count and a checksum of every byte before
// it), back to back in Cap'n Proto's standard stream framing. A file cut at any byte or changed
// anywhere is refused, named, before any episode is used.
#include <fstream>
#include <string>
#include <vector>

#include <dvla/core/checksum.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/messages/demonstration.hpp>

namespace dvla {

// Writes a dataset atomically: into `path`.tmp; finish() appends the footer, flushes the file to
// the device and renames it to `path`.
class DemonstrationWriter {
 public:
  static Expected<std::unique_ptr<DemonstrationWriter>> create(const std::string& path,
                                                               const msg::DatasetHeader& header);
  ~DemonstrationWriter();  // without finish(), the partial file is removed
  Status write(const msg::Demonstration& demo);
  Status finish();
  int written() const { return written_; }

 private:
  DemonstrationWriter(std::string path) : path_(std::move(path)), temporary_(path_ + ".tmp") {}
  Status append(const std::byte* data, size_t size);
  std::string path_, temporary_;
  std::ofstream out_;
  Checksum64 checksum_;  // of every byte appended so far
  int written_ = 0;
  bool finished_ = false;
};

struct DemonstrationSet {
  msg::DatasetHeader header;
  std::vector<msg::DemonstrationFrame> frames;  // keep the views below alive
  std::vector<msg::Demonstration> episodes;
};

// Reads and validates a whole dataset; the error names the file and the message that is wrong.
Expected<DemonstrationSet> read_demonstrations(const std::string& path);

}  // namespace dvla
