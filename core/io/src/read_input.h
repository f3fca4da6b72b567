#pragma once
// The importer seam (trace_reader.cpp) on an input already opened, as read_trace_from_memory uses it; tests use it
// to change a file between opening it and reading it.
#include <string>

#include "gtv/io/trace_file.h"
#include "input/input_bytes.h"

namespace gtv::io {

[[nodiscard]] Expected<Trace> read_trace_input(InputBytes& input, const std::string& name, const ReadOptions& options);

}  // namespace gtv::io
