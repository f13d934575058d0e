#pragma once
// EventFileWriter: a TensorBoard event file in a run's logdir,
// events.out.tfevents.<seconds>.<host>, written with TensorBoard's own Event and Summary schemas
// (schema/, compiled by protoc) in TFRecord framing. Every event is flushed as it is written.
//
// A resumed run writes a file of its own beside the earlier ones and starts it with a session
// start at the step it resumed from: TensorBoard shows both files as one run and drops the
// earlier run's points beyond that step (those of versions the resumed run trains again).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/tensorboard/record_file.hpp>
#include <dvla/runtime/tensorboard/summary_values.hpp>

namespace dvla::tensorboard {

class EventFileWriter {
 public:
  // Creates a new event file in `logdir` (which must exist) and writes its version event.
  static Expected<EventFileWriter> create(const std::string& logdir);

  Status write(int64_t step, const Summary& summary);
  // A resumed run: TensorBoard forgets the earlier points of this run after `step`.
  Status start_session(int64_t step);
  const std::string& path() const { return records_.path(); }
  bool failed() const { return records_.failed(); }  // a write failed: nothing more is written

 private:
  explicit EventFileWriter(RecordWriter records) : records_(std::move(records)) {}
  RecordWriter records_;
};

// Every event framed in `bytes`, in order; an error says what is wrong (a damaged or cut-short
// record, bytes that are not an Event).
Expected<std::vector<EventRecord>> parse_events(std::string_view bytes);
// The same for the file at `path`; errors name the file.
Expected<std::vector<EventRecord>> read_event_file(const std::string& path);

// The event files of `logdir` (names holding "tfevents"), in the order TensorBoard reads them.
std::vector<std::string> event_files(const std::string& logdir);

}  // namespace dvla::tensorboard
