#pragma once
// NUMA-local memory (graph.placement = auto on a machine of several NUMA nodes): an inference
// replica's weight buffers are bound to the NUMA node of the cores it runs on, so a forward pass
// reads its weights from local memory, not across the interconnect. hwloc moves pages already
// touched and places the rest there on first touch.
#include <cstddef>

#include <dvla/core/expected.hpp>

namespace dvla {

// Binds the pages of [address, address + bytes) to NUMA node `numa` (hwloc's logical index),
// moving those already there. The error names the node and why (no such node, the OS refused).
Status bind_to_numa_node(const void* address, size_t bytes, int numa);

// The NUMA node (logical index) the pages of [address, address + bytes) are on, as the OS reports
// it; an error when they span several or the OS cannot say.
Expected<int> numa_node_of(const void* address, size_t bytes);

}  // namespace dvla
