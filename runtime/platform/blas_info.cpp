#include <dvla/runtime/platform/blas_info.hpp>

#include <dlfcn.h>

#include <fstream>
#include <sstream>

namespace dvla {

std::string loaded_blas() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto path = line.find('/');
    if (path == std::string::npos) continue;
    const std::string file = line.substr(path);
    if (file.find("libblas") != std::string::npos || file.find("libopenblas") != std::string::npos)
      return file;
  }
  return "unknown";
}

bool set_blas_threads(int threads) {
  using setter = void (*)(int);
  // Looked up at run time: which BLAS libblas.so.3 resolves to is the machine's choice.
  if (auto* f = reinterpret_cast<setter>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    f(threads);
    return true;
  }
  return false;
}

int blas_threads() {
  using getter = int (*)();
  if (auto* f = reinterpret_cast<getter>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads")))
    return f();
  return 0;
}

std::string blas_text() {
  const int threads = blas_threads();
  if (threads <= 0) return loaded_blas() + " (threads not known)";
  return loaded_blas() + " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

}  // namespace dvla
