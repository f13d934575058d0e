#include <dvla/runtime/platform/thread_pinning.hpp>

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstring>

namespace dvla {

Status pin_this_thread(const CpuSet& set, const std::string& name) {
  // Linux keeps 15 characters of a thread's name.
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  if (set.empty()) return Status::ok();
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int pu : set) {
    if (pu < 0 || pu >= CPU_SETSIZE)
      return Error("cannot pin '" + name + "' to hardware thread " + std::to_string(pu));
    CPU_SET(pu, &mask);
  }
  if (const int e = pthread_setaffinity_np(pthread_self(), sizeof mask, &mask); e != 0)
    return Error("cannot pin '" + name + "' to " + cpu_list(set) + ": " + std::strerror(e));
  return Status::ok();
}

CpuSet affinity_of_this_thread() {
  cpu_set_t mask;
  CpuSet out;
  if (pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) != 0) return out;
  for (int pu = 0; pu < CPU_SETSIZE; ++pu)
    if (CPU_ISSET(pu, &mask)) out.push_back(pu);
  return out;
}

}  // namespace dvla
