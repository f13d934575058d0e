#include <dvla/runtime/storage/durable_file.hpp>

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace dvla {
namespace {

// An open file descriptor, closed when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // Closes now: close reports errors of writes the kernel deferred (NFS, some quotas).
  int close() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

Status write_all(int fd, const void* data, size_t size, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return Error("cannot write '" + path + "': " + describe_errno(n < 0 ? errno : ENOSPC));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::ok();
}

Status write_and_sync(const std::string& path, const void* data, size_t size) {
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Error("cannot create '" + path + "': " + describe_errno(errno));
  if (auto s = write_all(fd.get(), data, size, path); !s) return s;
  if (::fsync(fd.get()) != 0) return Error("cannot flush '" + path + "': " + describe_errno(errno));
  if (fd.close() != 0) return Error("cannot close '" + path + "': " + describe_errno(errno));
  return Status::ok();
}

}  // namespace

std::string describe_errno(int error) {
  const char* name = nullptr;
  switch (error) {
    case ENOSPC:
      name = "ENOSPC";
      break;
    case EDQUOT:
      name = "EDQUOT";
      break;
    case EFBIG:
      name = "EFBIG";
      break;
    case EROFS:
      name = "EROFS";
      break;
    case EACCES:
      name = "EACCES";
      break;
    case EIO:
      name = "EIO";
      break;
    default:
      break;
  }
  std::string text = std::strerror(error);
  if (name != nullptr) text += std::string(" (") + name + ")";
  return text;
}

Status write_file_durably(const std::string& path, const void* data, size_t size) {
  const std::string temporary = path + ".tmp";
  auto written = write_and_sync(temporary, data, size);
  if (written && std::rename(temporary.c_str(), path.c_str()) != 0)
    written = Error("cannot move '" + temporary + "' to '" + path + "': " + describe_errno(errno));
  if (!written) {
    ::unlink(temporary.c_str());
    return written;
  }
  return sync_parent_directory(path);
}

Status write_file_durably(const std::string& path, std::string_view text) {
  return write_file_durably(path, text.data(), text.size());
}

Status sync_file(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Error("cannot open '" + path + "': " + describe_errno(errno));
  if (::fsync(fd.get()) != 0) return Error("cannot flush '" + path + "': " + describe_errno(errno));
  return Status::ok();
}

Status sync_directory(const std::string& dir) {
  FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return Error("cannot open directory '" + dir + "': " + describe_errno(errno));
  if (::fsync(fd.get()) != 0 && errno != EINVAL)  // EINVAL: a file system that cannot sync dirs
    return Error("cannot flush directory '" + dir + "': " + describe_errno(errno));
  return Status::ok();
}

Status sync_parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return sync_directory(".");
  return sync_directory(slash == 0 ? "/" : path.substr(0, slash));
}

Expected<uint64_t> free_bytes(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0)
    return Error("cannot read the free space of '" + dir + "': " + describe_errno(errno));
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

Status require_free_space(const std::string& dir, uint64_t bytes, const std::string& what) {
  auto free = free_bytes(dir);
  if (!free) return free.error();
  if (*free >= bytes) return Status::ok();
  return Error(what + " needs " + std::to_string(bytes) + " bytes but the file system of '" + dir +
               "' has " + std::to_string(*free) + " free: " + describe_errno(ENOSPC));
}

}  // namespace dvla
