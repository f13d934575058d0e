#pragma once
// Frame: the one form every dvla message takes between actors. An immutable, reference-counted,
// 8-byte-aligned byte buffer holding one Cap'n Proto message in flat-array form. Copying a Frame
// shares the bytes (no copy); the bytes never change after building, so any number of actors may
// read them in place at once.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include <dvla/core/enum_text.hpp>

namespace dvla::msg {

// Which schema a frame holds; part of the frame's C++ type so actor interfaces are checked.
enum class Kind : uint8_t {
  observation_batch,
  action_batch,
  trajectory_segment,
  weight_update,
  version_announcement,
  control_command,
  metrics,
  dataset_header,
  demonstration,
  weight_chunk,
  dataset_footer,
};

}  // namespace dvla::msg

namespace dvla {

template <>
struct EnumNames<msg::Kind> {
  static constexpr std::array<std::pair<msg::Kind, std::string_view>, 11> names{
      {{msg::Kind::observation_batch, "observation batch"},
       {msg::Kind::action_batch, "action batch"},
       {msg::Kind::trajectory_segment, "trajectory segment"},
       {msg::Kind::weight_update, "weight update"},
       {msg::Kind::version_announcement, "version announcement"},
       {msg::Kind::control_command, "control command"},
       {msg::Kind::metrics, "metrics"},
       {msg::Kind::dataset_header, "dataset header"},
       {msg::Kind::demonstration, "demonstration"},
       {msg::Kind::weight_chunk, "weight chunk"},
       {msg::Kind::dataset_footer, "dataset footer"}}};
};

}  // namespace dvla

namespace dvla::msg {

// The untyped storage shared by all frames.
class Bytes {
 public:
  Bytes() = default;
  // Takes a copy of `size` bytes into fresh, word-aligned storage (used for bytes that arrive
  // from outside, e.g. a network peer; they are validated when read, not here).
  static Bytes copy_of(const void* data, size_t size);
  // Fresh word-aligned storage of `size` bytes and a pointer to fill it through, before the
  // Bytes is shared (used where bytes arrive from a stream).
  static Bytes allocate(size_t size, std::byte*& writable);
  // Adopts storage already built by a codec: `data` is word-aligned and kept alive by `owner`.
  static Bytes adopt(std::shared_ptr<const void> owner, const std::byte* data, size_t size);

  const std::byte* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // How many frames share these bytes (for tests and diagnostics).
  long use_count() const noexcept { return owner_.use_count(); }
  // What keeps the bytes alive, to adopt a part of them as Bytes of their own.
  const std::shared_ptr<const void>& owner() const noexcept { return owner_; }

 private:
  std::shared_ptr<const void> owner_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

template <Kind K>
class Frame {
 public:
  static constexpr Kind kind = K;

  Frame() = default;
  explicit Frame(Bytes bytes) : bytes_(std::move(bytes)) {}

  const Bytes& bytes() const noexcept { return bytes_; }
  const std::byte* data() const noexcept { return bytes_.data(); }
  size_t size() const noexcept { return bytes_.size(); }
  bool empty() const noexcept { return bytes_.empty(); }

 private:
  Bytes bytes_;
};

using ObservationFrame = Frame<Kind::observation_batch>;
using ActionFrame = Frame<Kind::action_batch>;
using SegmentFrame = Frame<Kind::trajectory_segment>;
using WeightsFrame = Frame<Kind::weight_update>;
using WeightChunkFrame = Frame<Kind::weight_chunk>;
using VersionFrame = Frame<Kind::version_announcement>;
using ControlFrame = Frame<Kind::control_command>;
using MetricsFrame = Frame<Kind::metrics>;
using DatasetHeaderFrame = Frame<Kind::dataset_header>;
using DemonstrationFrame = Frame<Kind::demonstration>;
using DatasetFooterFrame = Frame<Kind::dataset_footer>;

}  // namespace dvla::msg
