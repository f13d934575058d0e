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
    if (n > max_remote_frame_bytes)
      return caf::make_error(caf::sec::invalid_argument, "frame too large");
    // A size is checked against the bytes that arrived before anything is allocated for it: CAF
    // hands a message's values the base deserializer, so this asks what it is (a 40-byte message
    // claiming 4 GiB made the process allocate them: found by fuzz_cluster_messages).
    const auto* bytes_in = dynamic_cast<const caf::binary_deserializer*>(&f);
    if (bytes_in == nullptr)
      return caf::make_error(caf::sec::invalid_argument,
                             "a frame arrives through CAF's binary deserializer only");
    if (n > bytes_in->remaining()) return caf::make_error(caf::sec::end_of_stream);
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
