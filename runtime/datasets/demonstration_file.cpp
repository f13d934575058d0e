#include <dvla/runtime/datasets/demonstration_file.hpp>

#include <capnp/serialize.h>

#include <cstdio>
#include <iterator>

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
  if (!out_) return Error("writing '" + temporary_ + "' failed");
  return Status::ok();
}

Status DemonstrationWriter::write(const msg::Demonstration& demo) {
  const auto frame = msg::build(demo);
  if (auto s = append(frame.data(), frame.size()); !s) return s;
  ++written_;
  return Status::ok();
}

Status DemonstrationWriter::finish() {
  out_.close();
  if (!out_) return Error("writing '" + temporary_ + "' failed");
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    return Error("cannot move the dataset into place at '" + path_ + "'");
  finished_ = true;
  return Status::ok();
}

Expected<DemonstrationSet> read_demonstrations(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read dataset '" + path + "'");
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  // One aligned copy of the file; every message is a view into it, found through its framing.
  const msg::Bytes all = msg::Bytes::copy_of(raw.data(), raw.size());
  auto piece = [&](size_t offset, size_t size) {
    return msg::Bytes::adopt(all.owner(), all.data() + offset, size);
  };
  const auto* words = reinterpret_cast<const capnp::word*>(all.data());
  const size_t total = all.size() / sizeof(capnp::word);
  if (all.size() % sizeof(capnp::word) != 0)
    return Error("dataset '" + path + "' is not a whole number of 8-byte words (truncated?)");
  DemonstrationSet set;
  size_t at = 0;
  for (int index = 0; at < total; ++index) {
    size_t length = 0;
    try {
      capnp::FlatArrayMessageReader reader(kj::arrayPtr(words + at, total - at));
      length = static_cast<size_t>(reader.getEnd() - (words + at));
    } catch (const kj::Exception& e) {
      return Error("dataset '" + path + "', message " + std::to_string(index) + ": " +
                   e.getDescription().cStr());
    }
    const auto bytes = piece(at * sizeof(capnp::word), length * sizeof(capnp::word));
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
    at += length;
  }
  if (at == 0) return Error("dataset '" + path + "' is empty");
  return set;
}

}  // namespace dvla
