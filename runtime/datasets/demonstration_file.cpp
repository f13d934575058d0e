#include <dvla/runtime/datasets/demonstration_file.hpp>

#include <capnp/serialize.h>

#include <cerrno>
#include <cstdio>
#include <iterator>
#include <utility>

#include <dvla/runtime/storage/durable_file.hpp>

namespace dvla {

Expected<std::unique_ptr<DemonstrationWriter>> DemonstrationWriter::create(
    const std::string& path, const msg::DatasetHeader& header) {
  std::unique_ptr<DemonstrationWriter> w(new DemonstrationWriter(path));
  w->out_.open(w->temporary_, std::ios::binary | std::ios::trunc);
  if (!w->out_) return Error("cannot write a dataset to '" + w->temporary_ + "'");
  const auto frame = msg::build(header);
  if (auto s = w->append(frame.data(), frame.size()); !s) return s.error();
  return w;
}

DemonstrationWriter::~DemonstrationWriter() {
  if (finished_) return;
  out_.close();
  std::remove(temporary_.c_str());
}

Status DemonstrationWriter::append(const std::byte* data, size_t size) {
  out_.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out_) return Error("writing '" + temporary_ + "' failed: " + describe_errno(errno));
  checksum_.update(data, size);
  return Status::ok();
}

Status DemonstrationWriter::write(const msg::Demonstration& demo) {
  const auto frame = msg::build(demo);
  if (auto s = append(frame.data(), frame.size()); !s) return s;
  ++written_;
  return Status::ok();
}

Status DemonstrationWriter::finish() {
  const auto footer =
      msg::build(msg::DatasetFooter{static_cast<uint64_t>(written_), checksum_.digest()});
  if (auto s = append(footer.data(), footer.size()); !s) return s;
  out_.close();
  if (!out_) return Error("writing '" + temporary_ + "' failed: " + describe_errno(errno));
  if (auto s = sync_file(temporary_); !s) return s;
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    return Error("cannot move the dataset into place at '" + path_ + "': " + describe_errno(errno));
  finished_ = true;
  return sync_parent_directory(path_);
}

namespace {

// Where each message of a dataset file lies: (offset, size) in bytes, found through the framing.
Expected<std::vector<std::pair<size_t, size_t>>> message_extents(const msg::Bytes& all,
                                                                   const std::string& path) {
  if (all.size() % sizeof(capnp::word) != 0)
    return Error("dataset '" + path + "' is not a whole number of 8-byte words: it was cut short");
  const auto* words = reinterpret_cast<const capnp::word*>(all.data());
  const size_t total = all.size() / sizeof(capnp::word);
  std::vector<std::pair<size_t, size_t>> extents;
  for (size_t at = 0; at < total;) {
    size_t length = 0;
    try {
      capnp::FlatArrayMessageReader reader(kj::arrayPtr(words + at, total - at));
      length = static_cast<size_t>(reader.getEnd() - (words + at));
    } catch (const kj::Exception& e) {
      return Error("dataset '" + path + "' is cut short or damaged at message " +
                   std::to_string(extents.size()) + ": " + e.getDescription().cStr());
    }
    extents.emplace_back(at * sizeof(capnp::word), length * sizeof(capnp::word));
    at += length;
  }
  if (extents.size() < 2)
    return Error("dataset '" + path + "' has " + std::to_string(extents.size()) +
                 " message(s): it needs a header and a footer (empty or cut short)");
  return extents;
}

// The footer (the last message) matches what precedes it: the episode count and the checksum.
Status check_footer(const msg::Bytes& all, const std::vector<std::pair<size_t, size_t>>& extents,
                    const std::string& path) {
  const auto [offset, size] = extents.back();
  const auto bytes = msg::Bytes::adopt(all.owner(), all.data() + offset, size);
  auto footer = msg::read(msg::DatasetFooterFrame(bytes));
  if (!footer)
    return Error("dataset '" + path + "' ends without its footer: it was cut short (or written by "
                 "an older dvla): " + footer.error().message());
  const uint64_t episodes = extents.size() - 2;
  if (footer->episodes != episodes)
    return Error("dataset '" + path + "' holds " + std::to_string(episodes) +
                 " episodes but its footer says " + std::to_string(footer->episodes));
  if (checksum64(all.data(), offset) != footer->checksum)
    return Error("dataset '" + path + "' is damaged: its bytes do not match the checksum in its "
                 "footer");
  return Status::ok();
}

}  // namespace

Expected<DemonstrationSet> read_demonstrations(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read dataset '" + path + "'");
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  // One aligned copy of the file; every message is a view into it, found through its framing.
  const msg::Bytes all = msg::Bytes::copy_of(raw.data(), raw.size());
  if (all.size() == 0) return Error("dataset '" + path + "' is empty");
  auto extents = message_extents(all, path);
  if (!extents) return extents.error();
  if (auto whole = check_footer(all, *extents, path); !whole) return whole.error();
  DemonstrationSet set;
  for (size_t index = 0; index + 1 < extents->size(); ++index) {
    const auto [offset, size] = (*extents)[index];
    const auto bytes = msg::Bytes::adopt(all.owner(), all.data() + offset, size);
    const std::string where = "dataset '" + path + "', message " + std::to_string(index);
    if (index == 0) {
      auto header = msg::read(msg::DatasetHeaderFrame(bytes));
      if (!header) return header.error().within(where);
      set.header = *header;
    } else {
      msg::DemonstrationFrame frame(bytes);
      auto demo = msg::read(frame);
      if (!demo) return demo.error().within(where);
      set.frames.push_back(frame);
      set.episodes.push_back(*demo);
    }
  }
  return set;
}

}  // namespace dvla
