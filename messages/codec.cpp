#include <dvla/messages/codec.hpp>

#include <algorithm>

namespace dvla::msg {

Bytes Bytes::allocate(size_t size, std::byte*& writable) {
  const size_t words = (size + 7) / 8;
  std::shared_ptr<uint64_t[]> storage(new uint64_t[std::max<size_t>(words, 1)]);
  writable = reinterpret_cast<std::byte*>(storage.get());
  return adopt(std::shared_ptr<const void>(storage, storage.get()), writable, size);
}

Bytes Bytes::copy_of(const void* data, size_t size) {
  std::byte* out = nullptr;
  Bytes b = allocate(size, out);
  if (size > 0) std::memcpy(out, data, size);
  return b;
}

Bytes Bytes::adopt(std::shared_ptr<const void> owner, const std::byte* data, size_t size) {
  Bytes b;
  b.owner_ = std::move(owner);
  b.data_ = data;
  b.size_ = size;
  return b;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace codec {

void malformed(std::string what) { throw Malformed{std::move(what)}; }

const char* dtype_name(schema::DType d) {
  switch (d) {
    case schema::DType::FLOAT32:
      return "float32";
    case schema::DType::UINT8:
      return "uint8";
    case schema::DType::INT32:
      return "int32";
  }
  return "unknown";
}

// A float32 whose exponent bits are all ones is an infinity or a NaN.
static bool all_finite(const float* data, int64_t n) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {  // no early exit: the compiler vectorises it (weights: GBs)
    uint32_t bits;
    std::memcpy(&bits, data + i, sizeof bits);
    bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

void require_finite(const TensorRef<float>& t, const char* name) {
  const int64_t n = t.numel();
  if (all_finite(t.data, n)) return;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(t.data[i]))
      malformed(std::string("field '") + name + "' holds a non-finite value at element " +
                std::to_string(i));
}

template <class T>
static void require_dim_impl(const TensorRef<T>& t, size_t dim, int64_t expected, const char* name,
                             const char* expected_name) {
  if (t.rank() <= dim || t.shape[dim] != expected)
    malformed(std::string("field '") + name + "' has shape " + shape_string(t.shape) +
              ", but dimension " + std::to_string(dim) + " must equal " + expected_name + " (" +
              std::to_string(expected) + ")");
}

void require_dim(const TensorRef<float>& t, size_t dim, int64_t expected, const char* name,
                 const char* expected_name) {
  require_dim_impl(t, dim, expected, name, expected_name);
}
void require_dim(const TensorRef<uint8_t>& t, size_t dim, int64_t expected, const char* name,
                 const char* expected_name) {
  require_dim_impl(t, dim, expected, name, expected_name);
}
void require_dim(const TensorRef<int32_t>& t, size_t dim, int64_t expected, const char* name,
                 const char* expected_name) {
  require_dim_impl(t, dim, expected, name, expected_name);
}

void write_observations(schema::Observation::Builder b, const Observations& o) {
  write_tensor(b.initState(), o.state);
  if (o.has_images()) write_tensor(b.initImages(), o.images);
  if (o.has_instructions()) write_tensor(b.initInstructions(), o.instructions);
}

size_t observation_bytes(const Observations& o) {
  return tensor_bytes(o.state) + tensor_bytes(o.images) + tensor_bytes(o.instructions);
}

Observations read_observations(bool present, schema::Observation::Reader r, const char* name,
                               size_t lead) {
  if (!present) malformed(std::string("missing field '") + name + "'");
  const std::string field = name;
  Observations o;
  const std::string state = field + ".state";
  o.state = read_tensor<float>(r.hasState(), r.getState(), state.c_str(), any_rank);
  if (o.state.rank() < lead + 1)
    malformed("field '" + state + "' has shape " + shape_string(o.state.shape) +
              ", expected rank at least " + std::to_string(lead + 1));
  require_finite(o.state, state.c_str());
  if (r.hasImages()) {
    const std::string images = field + ".images";
    o.images =
        read_tensor<uint8_t>(true, r.getImages(), images.c_str(), static_cast<int>(lead + 4));
    if (o.images.shape.back() != 3)
      malformed("field '" + images + "' is not RGB (last dimension 3)");
    for (size_t d = 0; d < lead; ++d)
      require_dim(o.images, d, o.state.dim(d), images.c_str(), "the leading dimensions of state");
  }
  if (r.hasInstructions()) {
    const std::string instructions = field + ".instructions";
    o.instructions = read_tensor<int32_t>(true, r.getInstructions(), instructions.c_str(),
                                          static_cast<int>(lead + 1));
    for (size_t d = 0; d < lead; ++d)
      require_dim(o.instructions, d, o.state.dim(d), instructions.c_str(),
                  "the leading dimensions of state");
    for (int64_t i = 0; i < o.instructions.numel(); ++i)
      if (o.instructions.data[i] < 0)
        malformed("field '" + instructions + "' holds a negative token id");
  }
  return o;
}

}  // namespace codec
}  // namespace dvla::msg
