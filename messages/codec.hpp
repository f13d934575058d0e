#pragma once
// Shared machinery of the message codecs (private to messages/): building a Cap'n Proto message
// into a Frame's bytes, and reading one back with limits, catching every malformation as an Error.
#include <capnp/message.h>
#include <capnp/serialize.h>

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include <dvla/messages/observation.capnp.h>
#include <dvla/messages/tensor.capnp.h>
#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/observations.hpp>
#include <dvla/messages/tensor_ref.hpp>

namespace dvla::msg::codec {

// Builds a message of root type Schema with `fill(root_builder)`; `size_hint_bytes` sizes the first
// segment so large payloads land in one segment.
template <class Schema, class Fill>
Bytes encode(size_t size_hint_bytes, Fill&& fill) {
  capnp::MallocMessageBuilder builder(static_cast<unsigned>(size_hint_bytes / 8 + 64));
  fill(builder.initRoot<Schema>());
  auto flat = std::make_shared<kj::Array<capnp::word>>(capnp::messageToFlatArray(builder));
  auto bytes = flat->asBytes();
  auto* data = reinterpret_cast<const std::byte*>(bytes.begin());
  return Bytes::adopt(std::shared_ptr<const void>(flat, flat.get()), data, bytes.size());
}

// Thrown by the checks below while reading; decode() turns it into an Error.
struct Malformed {
  std::string what;
};

[[noreturn]] void malformed(std::string what);
inline void require(bool ok, const char* what) {
  if (!ok) malformed(what);
}

// Reads a frame as root type Schema and hands the reader to `read`, which returns the decoded
// value or calls malformed(). Limits: the traversal budget is proportional to the frame size, so a
// message cannot point at the same bytes over and over; nesting is shallow in every schema.
template <class Schema, class Read>
auto decode(const Bytes& bytes, Kind kind, Read&& read)
    -> Expected<std::decay_t<decltype(read(std::declval<typename Schema::Reader>()))>> {
  const std::string context(to_text(kind));
  if (bytes.empty()) return Error(context + ": empty frame");
  if (bytes.size() % sizeof(capnp::word) != 0)
    return Error(context + ": frame of " + std::to_string(bytes.size()) +
                 " bytes is not a whole number of 8-byte words (truncated?)");
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(capnp::word) != 0)
    return Error(context + ": frame is not 8-byte aligned");
  const auto words = kj::arrayPtr(reinterpret_cast<const capnp::word*>(bytes.data()),
                                  bytes.size() / sizeof(capnp::word));
  capnp::ReaderOptions options;
  options.traversalLimitInWords = 2 * words.size() + 256;
  options.nestingLimit = 16;
  try {
    capnp::FlatArrayMessageReader reader(words, options);
    if (reader.getEnd() != words.end())
      return Error(context + ": " + std::to_string((words.end() - reader.getEnd()) * 8) +
                   " trailing bytes after the message");
    return read(reader.getRoot<Schema>());
  } catch (const Malformed& m) {
    return Error(context + ": " + m.what);
  } catch (const kj::Exception& e) {
    return Error(context + ": not a valid Cap'n Proto message (" +
                 std::string(e.getDescription().cStr()) + ")");
  }
}

template <class T>
constexpr schema::DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return schema::DType::FLOAT32;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return schema::DType::UINT8;
  else {
    static_assert(std::is_same_v<T, int32_t>, "unsupported tensor element type");
    return schema::DType::INT32;
  }
}

const char* dtype_name(schema::DType d);

inline std::string text(capnp::Text::Reader t) { return std::string(t.begin(), t.size()); }
inline capnp::Text::Reader text(const std::string& s) {
  return capnp::Text::Reader(s.data(), s.size());
}

template <class T>
size_t tensor_bytes(const TensorRef<T>& t) {
  return static_cast<size_t>(t.numel()) * sizeof(T);
}

template <class T>
void write_tensor(schema::Tensor::Builder b, const TensorRef<T>& t) {
  b.setDtype(dtype_of<T>());
  auto shape = b.initShape(static_cast<unsigned>(t.shape.size()));
  for (unsigned i = 0; i < t.shape.size(); ++i) shape.set(i, static_cast<uint32_t>(t.shape[i]));
  auto data = b.initData(static_cast<unsigned>(tensor_bytes(t)));
  if (t.numel() > 0) std::memcpy(data.begin(), t.data, tensor_bytes(t));
}

constexpr int any_rank = -1;

// Reads tensor field `name`, which must be present, of dtype T and of the given rank (any_rank:
// at least 1).
template <class T>
TensorRef<T> read_tensor(bool present, schema::Tensor::Reader r, const char* name, int rank) {
  if (!present) malformed(std::string("missing field '") + name + "'");
  if (r.getDtype() != dtype_of<T>())
    malformed(std::string("field '") + name + "' has dtype " + dtype_name(r.getDtype()) +
              ", expected " + dtype_name(dtype_of<T>()));
  TensorRef<T> t;
  for (auto d : r.getShape()) t.shape.push_back(d);
  if (rank == any_rank ? t.shape.empty() : t.shape.size() != static_cast<size_t>(rank))
    malformed(std::string("field '") + name + "' has shape " + shape_string(t.shape) +
              ", expected rank " + (rank == any_rank ? "at least 1" : std::to_string(rank)));
  for (auto d : t.shape)
    if (d == 0)
      malformed(std::string("field '") + name + "' has an empty dimension " +
                shape_string(t.shape));
  auto data = r.getData();
  // Multiply with an overflow guard: a hostile shape must not wrap around to the data size.
  uint64_t elements = 1;
  for (auto d : t.shape) {
    if (elements > data.size() / sizeof(T) / static_cast<uint64_t>(d))
      malformed(std::string("field '") + name + "' has shape " + shape_string(t.shape) +
                " larger than its " + std::to_string(data.size()) + " bytes");
    elements *= static_cast<uint64_t>(d);
  }
  if (data.size() != tensor_bytes(t))
    malformed(std::string("field '") + name + "' holds " + std::to_string(data.size()) +
              " bytes, shape " + shape_string(t.shape) + " needs " +
              std::to_string(tensor_bytes(t)));
  t.data = reinterpret_cast<const T*>(data.begin());
  return t;
}

// Every value of a float tensor must be finite: NaN or Inf from a peer would poison learning.
void require_finite(const TensorRef<float>& t, const char* name);
// Dimension `dim` of `t` must equal `expected` (named for the error message).
void require_dim(const TensorRef<float>& t, size_t dim, int64_t expected, const char* name,
                 const char* expected_name);
void require_dim(const TensorRef<uint8_t>& t, size_t dim, int64_t expected, const char* name,
                 const char* expected_name);
void require_dim(const TensorRef<int32_t>& t, size_t dim, int64_t expected, const char* name,
                 const char* expected_name);

// Observations: written field by field (images and instructions only when present); read with
// every field's leading `lead` dimensions checked against state's, and state checked finite.
void write_observations(schema::Observation::Builder b, const Observations& o);
Observations read_observations(bool present, schema::Observation::Reader r, const char* name,
                               size_t lead);
size_t observation_bytes(const Observations& o);

}  // namespace dvla::msg::codec
