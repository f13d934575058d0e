#pragma once
// Files that survive a crash and a full disk: each is written under a temporary name, checked
// byte for byte as it goes (a full disk is named: ENOSPC), flushed to the device (fsync) and only
// then renamed into place, so a reader finds the old file or the whole new one. Errors name the
// path and the system's reason; nothing here aborts or throws.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <dvla/core/expected.hpp>

namespace dvla {

// Writes `size` bytes to `path` (through `path`.tmp, removed on failure).
Status write_file_durably(const std::string& path, const void* data, size_t size);
Status write_file_durably(const std::string& path, std::string_view text);

// Flushes a file written by other means (a stream) to the device.
Status sync_file(const std::string& path);

// Flushes a directory's entries (a rename or a new file in it) to the device.
Status sync_directory(const std::string& dir);
// The same for the directory that holds `path`.
Status sync_parent_directory(const std::string& path);

// The bytes free for an unprivileged writer on the file system that holds `dir`.
Expected<uint64_t> free_bytes(const std::string& dir);

// An error naming `what`, `dir` and both sizes unless `bytes` fit on its file system.
Status require_free_space(const std::string& dir, uint64_t bytes, const std::string& what);

// "No space left on device (ENOSPC)": strerror with the errno's symbolic name where it matters
// for the user (ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EIO).
std::string describe_errno(int error);

}  // namespace dvla
