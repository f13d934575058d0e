#pragma once
// A manifest: the files of a directory that must arrive whole (a checkpoint), each with its size
// and checksum (XXH3-64, core/checksum.hpp), in `manifest.json`. It is written last and flushed,
// so a directory with a manifest is complete; a loader verifies every listed file before it reads
// any and names the file that is missing, cut or changed.
#include <cstdint>
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>

namespace dvla {

struct ManifestEntry {
  std::string file;  // relative to the directory
  uint64_t size = 0;
  uint64_t checksum = 0;
};

using Manifest = std::vector<ManifestEntry>;

inline constexpr const char* manifest_file_name = "manifest.json";

// The entry for bytes about to be (or just) written as `file`.
ManifestEntry manifest_entry(const std::string& file, const void* data, size_t size);

// Writes `dir`/manifest.json durably (storage/durable_file.hpp).
Status write_manifest(const std::string& dir, const Manifest& manifest);
// Reads `dir`/manifest.json; the error says when it is missing or malformed.
Expected<Manifest> read_manifest(const std::string& dir);
// Reads the manifest and checks every file it lists: present, of its size, of its checksum.
Status verify_manifest(const std::string& dir);
// Replaces (or adds) one file's entry in `dir`'s manifest, e.g. after rewriting that file.
Status update_manifest(const std::string& dir, const ManifestEntry& entry);

}  // namespace dvla
