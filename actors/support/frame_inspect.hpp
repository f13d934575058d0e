#pragma once
// How CAF serializes a dvla Frame: its bytes as one raw block (a memcpy, no per-element work).
// Loading copies the bytes into fresh word-aligned storage, so the receiver reads them in place;
// validation happens where the frame is read, as for local frames. Locally nothing is serialized:
// a Frame shares its bytes.
#include <caf/binary_deserializer.hpp>
#include <caf/deserializer.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

#include <string>
#include <type_traits>

#include <dvla/messages/frame.hpp>

namespace dvla::msg {

// Frames larger than this are refused when they arrive from a peer.
constexpr size_t max_remote_frame_bytes = size_t{1} << 32;

template <class Inspector, Kind K>
typename Inspector::result_type inspect(Inspector& f, Frame<K>& x) {
  if constexpr (std::is_base_of_v<caf::serializer, Inspector>) {
    size_t n = x.size();
    return caf::error::eval(
        [&] { return f.begin_sequence(n); },
        [&] { return n > 0 ? f.apply_raw(n, const_cast<std::byte*>(x.data())) : caf::none; },
        [&] { return f.end_sequence(); });
  } else if constexpr (std::is_base_of_v<caf::deserializer, Inspector>) {
    size_t n = 0;
    if (auto err = f.begin_sequence(n)) return err;
    if constexpr (std::is_same_v<Inspector, caf::binary_deserializer>) {
      if (n > f.remaining()) return caf::make_error(caf::sec::end_of_stream);
    }
    if (n > max_remote_frame_bytes)
      return caf::make_error(caf::sec::invalid_argument, "frame too large");
    std::byte* out = nullptr;
    Bytes bytes = Bytes::allocate(n, out);
    if (n > 0)
      if (auto err = f.apply_raw(n, out)) return err;
    x = Frame<K>(std::move(bytes));
    return f.end_sequence();
  } else {
    // Printing (to_string): a summary, not the bytes.
    std::string summary =
        std::string(to_text(K)) + " frame of " + std::to_string(x.size()) + " bytes";
    return f(caf::meta::type_name("dvla::Frame"), summary);
  }
}

}  // namespace dvla::msg
