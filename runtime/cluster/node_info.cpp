#include <dvla/runtime/cluster/node_info.hpp>

#include <fmt/core.h>
#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <memory>
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

// "1 package, 1 NUMA node, 8 cores, 16 threads, 1 x L3 of 32 MiB" (as the machine tells hwloc).
std::string topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return "unknown (hwloc could not start)";
  const std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> t(raw, hwloc_topology_destroy);
  if (hwloc_topology_load(t.get()) != 0) return "unknown (hwloc could not read the machine)";
  auto count = [&](hwloc_obj_type_t type, const char* what) {
    const int n = hwloc_get_nbobjs_by_type(t.get(), type);
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  auto text = count(HWLOC_OBJ_PACKAGE, "package") + ", " + count(HWLOC_OBJ_NUMANODE, "NUMA node") +
              ", " + count(HWLOC_OBJ_CORE, "core") + ", " + count(HWLOC_OBJ_PU, "thread");
  if (const int caches = hwloc_get_nbobjs_by_type(t.get(), HWLOC_OBJ_L3CACHE); caches > 0)
    text +=
        fmt::format(", {} x L3 of {} MiB", caches,
                    hwloc_get_obj_by_type(t.get(), HWLOC_OBJ_L3CACHE, 0)->attr->cache.size >> 20);
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

namespace {

bool printable(const std::string& text) {
  for (const unsigned char ch : text)
    if (ch < 0x20 || ch == 0x7f) return false;
  return true;
}

}  // namespace

Status check_bounds(const NodeInfo& info) {
  const auto bad = [](const std::string& what) { return Status(Error(what)); };
  if (info.name.empty() || info.name.size() > 128 || !printable(info.name))
    return bad("its name must be 1 to 128 printable characters");
  if (info.host.size() > 255 || !printable(info.host))
    return bad("its host name must be at most 255 printable characters");
  if (info.topology.size() > 4096 || !printable(info.topology))
    return bad("its topology must be at most 4096 printable characters");
  if (info.cores < 1 || info.cores > 65536) return bad("its cores must be 1 to 65536");
  if (info.memory_mib > (uint64_t{1} << 40)) return bad("its memory is more than any machine's");
  if (info.gpus > 1024) return bad("its GPUs must be at most 1024");
  if (info.samplers > 4096) return bad("the samplers it asks for must be at most 4096");
  return Status::ok();
}

}  // namespace dvla
