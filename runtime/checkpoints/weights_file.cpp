#include <dvla/runtime/checkpoints/weights_file.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include <dvla/messages/weight_update.hpp>

namespace dvla {

Status save_weights(const std::string& path, const msg::WeightsFrame& weights) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(weights.data()),
              static_cast<std::streamsize>(weights.size()));
    if (!out) return Error("cannot write weights to '" + temporary + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    return Error("cannot move weights into place at '" + path + "'");
  return Status::ok();
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
