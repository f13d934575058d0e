#pragma once
// The whole of a file as bytes, for readers that check what they read (event files, GIFs); the
// error names the path and the system's reason.
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla {

Expected<std::string> read_file_bytes(const std::string& path);

}  // namespace dvla
