#pragma once
// A policy's weights on disk: the bytes of a WeightUpdate frame, written durably (to a temporary
// file, flushed, then renamed: storage/durable_file.hpp), so a reader never sees half a file.
// Loading validates like any frame from outside.
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla {

Status save_weights(const std::string& path, const msg::WeightsFrame& weights);
Expected<msg::WeightsFrame> load_weights(const std::string& path);

}  // namespace dvla
