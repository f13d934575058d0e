#pragma once
// TensorRef: a non-owning view of a dense row-major array, used both to build a message from the
// sender's memory and to read a message in place. Whoever holds a TensorRef keeps its memory
// alive (for a read message: the Frame).
#include <cstdint>
#include <string>
#include <vector>

namespace dvla::msg {

template <class T>
struct TensorRef {
  const T* data = nullptr;
  std::vector<int64_t> shape;

  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  int64_t dim(size_t i) const { return shape.at(i); }
  size_t rank() const { return shape.size(); }
};

std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace dvla::msg
