#include <dvla/runtime/storage/file_bytes.hpp>

#include <cerrno>
#include <fstream>
#include <iterator>

#include <dvla/runtime/storage/durable_file.hpp>

namespace dvla {

Expected<std::string> read_file_bytes(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot open '" + path + "': " + describe_errno(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return Error("reading '" + path + "' failed: " + describe_errno(errno));
  return bytes;
}

}  // namespace dvla
