#include <dvla/runtime/tensorboard/event_file.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/core.h>

#include <dvla/runtime/storage/file_bytes.hpp>

#include "tensorboard/compat/proto/event.pb.h"

namespace dvla::tensorboard {
namespace {

namespace fs = std::filesystem;
constexpr const char* file_version = "brain.Event:2";  // what TensorBoard's readers expect

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

void add(::tensorboard::Summary& out, const HistogramValue& h) {
  auto* value = out.add_value();
  value->set_tag(h.tag);
  auto* histo = value->mutable_histo();
  histo->set_min(h.min);
  histo->set_max(h.max);
  histo->set_num(h.count);
  histo->set_sum(h.sum);
  histo->set_sum_squares(h.sum_squares);
  for (double limit : h.limits) histo->add_bucket_limit(limit);
  for (double count : h.counts) histo->add_bucket(count);
}

void add(::tensorboard::Summary& out, const ImageValue& i) {
  auto* value = out.add_value();
  value->set_tag(i.tag);
  auto* image = value->mutable_image();
  image->set_height(i.height);
  image->set_width(i.width);
  image->set_colorspace(i.channels);
  image->set_encoded_image_string(i.encoded);
}

Summary plain(const ::tensorboard::Summary& in) {
  Summary out;
  for (const auto& v : in.value()) {
    if (v.has_histo()) {
      const auto& h = v.histo();
      out.histograms.push_back({v.tag(),
                                h.min(),
                                h.max(),
                                h.num(),
                                h.sum(),
                                h.sum_squares(),
                                {h.bucket_limit().begin(), h.bucket_limit().end()},
                                {h.bucket().begin(), h.bucket().end()}});
    } else if (v.has_image()) {
      const auto& i = v.image();
      out.images.push_back(
          {v.tag(), i.height(), i.width(), i.colorspace(), i.encoded_image_string()});
    } else {
      out.scalars.push_back({v.tag(), v.simple_value()});
    }
  }
  return out;
}

Status write_event(RecordWriter& records, const ::tensorboard::Event& event) {
  std::string bytes;
  if (!event.SerializeToString(&bytes))
    return Error("an event for '" + records.path() + "' could not be serialised");
  return records.append(bytes);
}

}  // namespace

Expected<EventFileWriter> EventFileWriter::create(const std::string& logdir) {
  const double started = now_seconds();
  const auto stem =
      fmt::format("events.out.tfevents.{:010d}.{}", static_cast<int64_t>(started), host_name());
  // A run resumed within the second of the earlier one's start: the next free suffix.
  Expected<RecordWriter> records = Error("");
  for (int n = 1; n < 100; ++n) {
    const auto name = n == 1 ? stem : fmt::format("{}.{}", stem, n);
    records = RecordWriter::create((fs::path(logdir) / name).string());
    if (records || !fs::exists(fs::path(logdir) / name)) break;
  }
  if (!records) return records.error().within("TensorBoard event file");
  ::tensorboard::Event first;
  first.set_wall_time(started);
  first.set_file_version(file_version);
  if (auto written = write_event(*records, first); !written) return written.error();
  return EventFileWriter(std::move(*records));
}

Status EventFileWriter::write(int64_t step, const Summary& summary) {
  ::tensorboard::Event event;
  event.set_wall_time(now_seconds());
  event.set_step(step);
  auto* out = event.mutable_summary();
  for (const auto& s : summary.scalars) {
    auto* value = out->add_value();
    value->set_tag(s.tag);
    value->set_simple_value(static_cast<float>(s.value));
  }
  for (const auto& h : summary.histograms) add(*out, h);
  for (const auto& i : summary.images) add(*out, i);
  return write_event(records_, event);
}

Status EventFileWriter::start_session(int64_t step) {
  ::tensorboard::Event event;
  event.set_wall_time(now_seconds());
  event.set_step(step);
  event.mutable_session_log()->set_status(::tensorboard::SessionLog::START);
  return write_event(records_, event);
}

Expected<std::vector<EventRecord>> read_event_file(const std::string& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  auto events = parse_events(*bytes);
  if (!events) return events.error().within("'" + path + "'");
  return events;
}

Expected<std::vector<EventRecord>> parse_events(std::string_view bytes) {
  auto records = split_records(bytes);
  if (!records) return records.error();
  std::vector<EventRecord> events;
  for (size_t i = 0; i < records->size(); ++i) {
    ::tensorboard::Event event;
    if (!event.ParseFromString((*records)[i]))
      return Error("record " + std::to_string(i) + " is not a TensorBoard Event");
    EventRecord e;
    e.wall_time = event.wall_time();
    e.step = event.step();
    if (event.has_file_version()) e.file_version = event.file_version();
    e.session_start =
        event.has_session_log() && event.session_log().status() == ::tensorboard::SessionLog::START;
    if (event.has_summary()) e.summary = plain(event.summary());
    events.push_back(std::move(e));
  }
  return events;
}

std::vector<std::string> event_files(const std::string& logdir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(logdir, ec))
    if (entry.is_regular_file() &&
        entry.path().filename().string().find("tfevents") != std::string::npos)
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace dvla::tensorboard
