#include <dvla/runtime/tensorboard/crc32c.hpp>

#include <boost/crc.hpp>

namespace dvla::tensorboard {

uint32_t crc32c(std::string_view bytes) {
  // Polynomial 0x1EDC6F41, reflected input and output, initial and final XOR all ones.
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

uint32_t masked_crc32c(std::string_view bytes) {
  const uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace dvla::tensorboard
