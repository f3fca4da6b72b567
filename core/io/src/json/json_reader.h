#pragma once
// The Chrome/Kineto JSON reader: a trace from JSON text (plain or inflated from gzip) read as a stream.
#include <string>

#include "gtv/io/trace_file.h"
#include "input/input_bytes.h"

namespace gtv::io {

// Reads the whole text of input as a JSON trace; errors are one line naming `name` and the byte (or event) where
// the text went wrong.
[[nodiscard]] Expected<Trace> read_json_trace(InputBytes& input, const std::string& name, const ReadOptions& options);

}  // namespace gtv::io
