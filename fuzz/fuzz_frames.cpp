// libFuzzer target: every message reader. The first byte picks the schema (msg::Kind), the rest is
// the frame, as a peer or a file could send it: each read() must refuse what is malformed with an
// error, never crash, hang or read outside the bytes.
#include <cstddef>
#include <cstdint>

#include <dvla/messages/all.hpp>
#include <dvla/messages/demonstration.hpp>

namespace {

using namespace dvla::msg;

template <Kind K>
void read_as(const uint8_t* data, size_t size) {
  (void)read(Frame<K>(Bytes::copy_of(data, size)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto kind = static_cast<Kind>(data[0] % dvla::EnumNames<Kind>::names.size());
  ++data, --size;
  switch (kind) {
    case Kind::observation_batch: read_as<Kind::observation_batch>(data, size); break;
    case Kind::action_batch: read_as<Kind::action_batch>(data, size); break;
    case Kind::trajectory_segment: read_as<Kind::trajectory_segment>(data, size); break;
    case Kind::weight_update: read_as<Kind::weight_update>(data, size); break;
    case Kind::version_announcement: read_as<Kind::version_announcement>(data, size); break;
    case Kind::control_command: read_as<Kind::control_command>(data, size); break;
    case Kind::metrics: read_as<Kind::metrics>(data, size); break;
    case Kind::dataset_header: read_as<Kind::dataset_header>(data, size); break;
    case Kind::demonstration: read_as<Kind::demonstration>(data, size); break;
    case Kind::weight_chunk: read_as<Kind::weight_chunk>(data, size); break;
    case Kind::dataset_footer: read_as<Kind::dataset_footer>(data, size); break;
  }
  return 0;
}
