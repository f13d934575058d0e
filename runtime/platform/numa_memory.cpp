#include <dvla/runtime/platform/numa_memory.hpp>

#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace dvla {
namespace {

using Topology = std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)>;
using Bitmap = std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)>;

Expected<Topology> this_machine() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return Error("hwloc could not start");
  Topology t(raw, hwloc_topology_destroy);
  if (hwloc_topology_load(t.get()) != 0) return Error("hwloc could not read the machine");
  return t;
}

std::string what_went_wrong() { return errno != 0 ? std::strerror(errno) : "unknown reason"; }

}  // namespace

Status bind_to_numa_node(const void* address, size_t bytes, int numa) {
  auto t = this_machine();
  if (!t) return t.error();
  const int nodes = hwloc_get_nbobjs_by_type(t->get(), HWLOC_OBJ_NUMANODE);
  if (numa < 0 || numa >= nodes)
    return Error("cannot bind memory to NUMA node " + std::to_string(numa) + ": this machine has " +
                 std::to_string(nodes));
  const auto node = hwloc_get_obj_by_type(t->get(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(numa));
  errno = 0;
  if (hwloc_set_area_membind(t->get(), address, bytes, node->nodeset, HWLOC_MEMBIND_BIND,
                             HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_MIGRATE) != 0)
    return Error("cannot bind " + std::to_string(bytes) + " bytes to NUMA node " +
                 std::to_string(numa) + ": " + what_went_wrong());
  return Status::ok();
}

Expected<int> numa_node_of(const void* address, size_t bytes) {
  auto t = this_machine();
  if (!t) return t.error();
  Bitmap where(hwloc_bitmap_alloc(), hwloc_bitmap_free);
  errno = 0;
  if (hwloc_get_area_memlocation(t->get(), address, bytes, where.get(), HWLOC_MEMBIND_BYNODESET) != 0)
    return Error("the OS cannot say where " + std::to_string(bytes) + " bytes are: " +
                 what_went_wrong());
  const int nodes = hwloc_get_nbobjs_by_type(t->get(), HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nodes; ++i) {
    const auto node = hwloc_get_obj_by_type(t->get(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (hwloc_bitmap_isequal(where.get(), node->nodeset)) return i;
  }
  return Error("the " + std::to_string(bytes) + " bytes lie on several NUMA nodes or none");
}

}  // namespace dvla
