#include <dvla/runtime/cluster/node_info.hpp>

#include <fmt/core.h>
#include <hwloc.h>
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

// "1 package, 1 NUMA node, 2 cores, 2 threads, L3 32 MiB" (as much as hwloc can tell).
std::string topology() {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return "unknown (hwloc could not start)";
  if (hwloc_topology_load(t) != 0) {
    hwloc_topology_destroy(t);
    return "unknown (hwloc could not read the machine)";
  }
  auto count = [&](hwloc_obj_type_t type, const char* what) {
    const int n = hwloc_get_nbobjs_by_type(t, type);
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  auto text = count(HWLOC_OBJ_PACKAGE, "package") + ", " + count(HWLOC_OBJ_NUMANODE, "NUMA node") +
              ", " + count(HWLOC_OBJ_CORE, "core") + ", " + count(HWLOC_OBJ_PU, "thread");
  uint64_t l3 = 0;
  for (int i = 0; i < hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE); ++i)
    l3 += hwloc_get_obj_by_type(t, HWLOC_OBJ_L3CACHE, static_cast<unsigned>(i))->attr->cache.size;
  if (l3 > 0) text += fmt::format(", L3 {} MiB", l3 >> 20);
  hwloc_topology_destroy(t);
  return text;
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
  info.topology = topology();
  return info;
}

}  // namespace dvla
