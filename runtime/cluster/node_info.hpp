#pragma once
// NodeInfo: what a node tells the coordinator about itself when it joins — who it is and what it
// has, so that the coordinator can size what it places there.
#include <cstdint>
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla {

struct NodeInfo {
  std::string name;  // unique in the cluster; dvla-node's --name, else HOST/PID
  std::string host;  // the machine's host name
  uint64_t pid = 0;
  uint32_t cores = 1;  // logical cores the process may use
  uint64_t memory_mib = 0;
  std::string topology;  // hwloc's view: packages, NUMA nodes, cores, threads, L3
  uint32_t gpus = 0;     // CUDA devices LibTorch sees
  // Samplers it asks to host (dvla-node --samplers); 0: the coordinator's rule.
  uint32_t samplers = 0;
};

// Whether what a joining node says of itself fits what a node can be (a name of at most 128
// printable characters, no more cores, memory, GPUs or samplers than a machine has): what a peer
// sends is checked before it sizes anything. The error names the field.
Status check_bounds(const NodeInfo& info);

// This process on this machine (everything but the GPUs, which take LibTorch to count).
NodeInfo describe_this_process(const std::string& name);

}  // namespace dvla
