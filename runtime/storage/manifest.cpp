#include <dvla/runtime/storage/manifest.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <vector>

#include <dvla/core/checksum.hpp>
#include <dvla/runtime/storage/durable_file.hpp>

namespace dvla {
namespace {

std::string path_in(const std::string& dir, const std::string& file) { return dir + "/" + file; }

// Size and checksum of a file, read in blocks (weights may be hundreds of MB).
Expected<ManifestEntry> measure(const std::string& dir, const std::string& file) {
  std::ifstream in(path_in(dir, file), std::ios::binary);
  if (!in) return Error("'" + file + "' is missing");
  ManifestEntry e;
  e.file = file;
  Checksum64 checksum;
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto n = static_cast<size_t>(in.gcount());
    checksum.update(block.data(), n);
    e.size += n;
  }
  if (in.bad()) return Error("cannot read '" + file + "'");
  e.checksum = checksum.digest();
  return e;
}

}  // namespace

ManifestEntry manifest_entry(const std::string& file, const void* data, size_t size) {
  return {file, size, checksum64(data, size)};
}

Status write_manifest(const std::string& dir, const Manifest& manifest) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& e : manifest)
    files.push_back({{"file", e.file}, {"size", e.size}, {"xxh3_64", checksum_text(e.checksum)}});
  const nlohmann::json j = {{"files", files}};
  return write_file_durably(path_in(dir, manifest_file_name), j.dump(2) + "\n");
}

Expected<Manifest> read_manifest(const std::string& dir) {
  std::ifstream in(path_in(dir, manifest_file_name));
  if (!in)
    return Error(std::string("no ") + manifest_file_name +
                 " (the save did not finish, or an older dvla wrote it)");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    Manifest manifest;
    const auto parsed = nlohmann::json::parse(text);
    for (const auto& f : parsed.at("files")) {
      ManifestEntry e;
      e.file = f.at("file").get<std::string>();
      e.size = f.at("size").get<uint64_t>();
      e.checksum = std::stoull(f.at("xxh3_64").get<std::string>(), nullptr, 16);
      if (e.file.empty() || e.file.find('/') != std::string::npos || e.file == "..")
        throw std::invalid_argument("a file name that leaves the directory: '" + e.file + "'");
      manifest.push_back(std::move(e));
    }
    return manifest;
  } catch (const std::exception& e) {
    return Error(std::string(manifest_file_name) + " is damaged: " + e.what());
  }
}

Status verify_manifest(const std::string& dir) {
  auto manifest = read_manifest(dir);
  if (!manifest) return manifest.error();
  for (const auto& expected : *manifest) {
    auto found = measure(dir, expected.file);
    if (!found) return found.error();
    if (found->size != expected.size)
      return Error("'" + expected.file + "' is damaged: " + std::to_string(found->size) +
                   " bytes where " + std::to_string(expected.size) + " were written");
    if (found->checksum != expected.checksum)
      return Error("'" + expected.file + "' is damaged: its checksum is " +
                   checksum_text(found->checksum) + ", " + checksum_text(expected.checksum) +
                   " was written");
  }
  return Status::ok();
}

Status update_manifest(const std::string& dir, const ManifestEntry& entry) {
  auto manifest = read_manifest(dir);
  if (!manifest) return manifest.error();
  auto it = std::find_if(manifest->begin(), manifest->end(),
                         [&](const ManifestEntry& e) { return e.file == entry.file; });
  if (it != manifest->end())
    *it = entry;
  else
    manifest->push_back(entry);
  return write_manifest(dir, *manifest);
}

}  // namespace dvla
