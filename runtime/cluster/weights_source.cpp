#include <dvla/runtime/cluster/weights_source.hpp>

namespace dvla {

std::string WeightsSource::text() const {
  return name + " (" + (host.empty() ? std::string("coordinator") : host) + ":" +
         std::to_string(port) + ")";
}

}  // namespace dvla
