#pragma once
// TFRecord files, the framing of TensorBoard's event files: each record is its length (8 bytes,
// little-endian), the masked CRC-32C of those 8 bytes, the data, and the masked CRC-32C of the
// data. A writer flushes each record, so a killed run leaves every whole record it wrote.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla::tensorboard {

class RecordWriter {
 public:
  // Creates `path`, which must not exist yet (two writers never share a file).
  static Expected<RecordWriter> create(const std::string& path);

  // Appends one record and flushes it; the error names the file and the system's reason. After
  // a failure the file may end in part of a record, and nothing more is appended.
  Status append(std::string_view data);
  bool failed() const { return failed_; }
  const std::string& path() const { return path_; }

 private:
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  RecordWriter(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  std::string path_;
  std::unique_ptr<std::FILE, Close> file_;
  bool failed_ = false;
};

// The records framed in `bytes`, in order. An error names the record's offset and what is wrong:
// a checksum that does not match, or bytes that end inside a record (a writer killed mid-record).
Expected<std::vector<std::string>> split_records(std::string_view bytes);

// The records of the file at `path`; errors name the file.
Expected<std::vector<std::string>> read_records(const std::string& path);

}  // namespace dvla::tensorboard
