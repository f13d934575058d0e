#include <dvla/runtime/tensorboard/record_file.hpp>

#include <cerrno>
#include <cstdint>

#include <dvla/runtime/storage/durable_file.hpp>
#include <dvla/runtime/storage/file_bytes.hpp>
#include <dvla/runtime/tensorboard/crc32c.hpp>

namespace dvla::tensorboard {
namespace {

constexpr size_t length_bytes = 8, crc_bytes = 4;

template <class T>
std::string little_endian(T value) {
  std::string out(sizeof(T), '\0');
  for (size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

template <class T>
T read_little_endian(std::string_view bytes) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return value;
}

std::string frame(std::string_view data) {
  const std::string length = little_endian<uint64_t>(data.size());
  std::string out = length + little_endian(masked_crc32c(length));
  out.append(data);
  out += little_endian(masked_crc32c(data));
  return out;
}

}  // namespace

Expected<RecordWriter> RecordWriter::create(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wbx");  // x: fails if the file exists
  if (!file) return Error("cannot create '" + path + "': " + describe_errno(errno));
  return RecordWriter(path, file);
}

Status RecordWriter::append(std::string_view data) {
  if (failed_) return Error("'" + path_ + "' is not written to after a failed write");
  const std::string record = frame(data);
  errno = 0;
  if (std::fwrite(record.data(), 1, record.size(), file_.get()) == record.size() &&
      std::fflush(file_.get()) == 0)
    return {};
  failed_ = true;
  return Error("writing '" + path_ + "' failed: " + describe_errno(errno));
}

Expected<std::vector<std::string>> split_records(std::string_view bytes) {
  std::vector<std::string> records;
  size_t at = 0;
  while (at < bytes.size()) {
    const auto where = "record at byte " + std::to_string(at);
    if (bytes.size() - at < length_bytes + crc_bytes)
      return Error(where + ": the bytes end inside its length (a writer stopped mid-record?)");
    const auto length_field = bytes.substr(at, length_bytes);
    if (read_little_endian<uint32_t>(bytes.substr(at + length_bytes)) !=
        masked_crc32c(length_field))
      return Error(where + ": the checksum of its length does not match");
    const uint64_t length = read_little_endian<uint64_t>(length_field);
    const size_t body = at + length_bytes + crc_bytes;
    if (length > bytes.size() - body || bytes.size() - body - length < crc_bytes)
      return Error(where + ": " + std::to_string(length) +
                   " bytes of data do not fit in what is left (a writer stopped mid-record?)");
    const auto data = bytes.substr(body, length);
    if (read_little_endian<uint32_t>(bytes.substr(body + length)) != masked_crc32c(data))
      return Error(where + ": the checksum of its " + std::to_string(length) +
                   " bytes of data does not match");
    records.emplace_back(data);
    at = body + length + crc_bytes;
  }
  return records;
}

Expected<std::vector<std::string>> read_records(const std::string& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  auto records = split_records(*bytes);
  if (!records) return records.error().within("'" + path + "'");
  return records;
}

}  // namespace dvla::tensorboard
