#include <dvla/runtime/checkpoints/weights_file.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/storage/durable_file.hpp>

namespace dvla {

Status save_weights(const std::string& path, const msg::WeightsFrame& weights) {
  return write_file_durably(path, weights.data(), weights.size());
}

Expected<msg::WeightsFrame> load_weights(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read weights file '" + path + "'");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  msg::WeightsFrame frame(msg::Bytes::copy_of(bytes.data(), bytes.size()));
  if (auto update = msg::read(frame); !update)
    return update.error().within("weights file '" + path + "'");
  return frame;
}

}  // namespace dvla
