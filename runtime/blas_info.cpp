#include "runtime/blas_info.hpp"

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

}  // namespace dvla
