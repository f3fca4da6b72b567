#pragma once
// The reader on an input already opened: read_trace and read_trace_from_memory open theirs and call this; tests
// use it to change a file between opening it and reading it.
#include <string>

#include "gtv/io/trace_file.h"
#include "input_bytes.h"

namespace gtv::io {

[[nodiscard]] Expected<Trace> read_trace_input(InputBytes& input, const std::string& name, const ReadOptions& options);

}  // namespace gtv::io
