#include <dvla/gpu/memory_pool.hpp>

#include <cstdio>

namespace dvla::gpu {

std::string format_bytes(size_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024)
    std::snprintf(text, sizeof text, "%zu B", bytes);
  else if (bytes < (size_t{1} << 20))
    std::snprintf(text, sizeof text, "%.1f KiB", b / 1024);
  else if (bytes < (size_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1 << 20));
  else
    std::snprintf(text, sizeof text, "%.2f GiB", b / (1 << 30));
  return text;
}

Error pool_exhausted(const PoolStats& s, size_t bytes) {
  std::string why = "pool '" + s.name + "' cannot allocate " + format_bytes(bytes) + ": budget " +
                    format_bytes(s.budget) + ", " + format_bytes(s.in_use) + " in use";
  if (s.largest_free_block >= 0)
    why += ", largest free block " + format_bytes(static_cast<size_t>(s.largest_free_block));
  return Error(why);
}

}  // namespace dvla::gpu
