#pragma once
// A directory of the fuzzing process's own under $TMPDIR (or /tmp), removed when it exits: the
// loaders under test read files, so each input is written there first.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace dvla::fuzz {

class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
            ("dvla-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `size` bytes to `name` in the directory (replacing it); its path.
  std::string write(const std::string& name, const void* data, size_t size) const {
    const auto file = path_ / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

// The process's one scratch directory.
inline const ScratchDir& scratch() {
  static const ScratchDir dir;
  return dir;
}

}  // namespace dvla::fuzz
