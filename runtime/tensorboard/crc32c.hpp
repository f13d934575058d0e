#pragma once
// CRC-32C (Castagnoli), the checksum of TFRecord framing, computed by Boost.CRC; and the masked
// form TFRecord stores (a CRC of data that holds CRCs is itself a poor check, so TensorFlow
// rotates and offsets the stored value).
#include <cstdint>
#include <string_view>

namespace dvla::tensorboard {

uint32_t crc32c(std::string_view bytes);
uint32_t masked_crc32c(std::string_view bytes);

}  // namespace dvla::tensorboard
