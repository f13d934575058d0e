#include <dvla/runtime/cluster/node_info.hpp>

#include <sched.h>
#include <unistd.h>

#include <thread>

namespace dvla {
namespace {

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown-host";
  return buffer;
}

// The cores this process may run on (its affinity mask: a container's or taskset's limit).
uint32_t usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<uint32_t>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

uint64_t memory_mib() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) >> 20;
}

}  // namespace

NodeInfo describe_this_process(const std::string& name) {
  NodeInfo info;
  info.host = host_name();
  info.pid = static_cast<uint64_t>(getpid());
  info.name = name.empty() ? info.host + "/" + std::to_string(info.pid) : name;
  info.cores = usable_cores();
  info.memory_mib = memory_mib();
  return info;
}

}  // namespace dvla
