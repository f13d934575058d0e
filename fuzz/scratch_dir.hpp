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
  // Under $TMPDIR where it can be made there (ctest sets /dev/shm: files in memory), else /tmp.
  ScratchDir() {
    const auto name = "dvla-fuzz-" + std::to_string(::getpid());
    const char* tmp = std::getenv("TMPDIR");
    std::error_code ec;
    if (tmp && *tmp) {
      path_ = std::filesystem::path(tmp) / name;
      if (std::filesystem::create_directories(path_, ec) || std::filesystem::is_directory(path_))
        return;
    }
    path_ = std::filesystem::path("/tmp") / name;
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
