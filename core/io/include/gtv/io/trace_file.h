#pragma once
// Reading and writing trace files: Chrome Trace Event JSON with Kineto's conventions, plain or gzip.
#include <string>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv::io {

// Progress of a long read, 0..1; return false to cancel.
using ProgressFn = bool (*)(void* context, double fraction);

struct ReadOptions {
  ProgressFn progress = nullptr;
  void* progress_context = nullptr;
};

// Reads a .json or .json.gz trace (gzip is detected by its magic bytes, not by name). Errors are one line that
// names the file and, where known, the byte offset or event index.
[[nodiscard]] Expected<Trace> read_trace(const std::string& path, const ReadOptions& options = {});
// The same from bytes already in memory; `name` is used in error messages.
[[nodiscard]] Expected<Trace> read_trace_from_memory(std::string_view bytes, const std::string& name,
                                                     const ReadOptions& options = {});

// Writes the trace; gzip when path ends in ".gz". Atomic: a temporary file next to path, then rename.
[[nodiscard]] Status write_trace(const Trace& trace, const std::string& path);
// The JSON text of the trace (uncompressed).
[[nodiscard]] std::string write_trace_to_string(const Trace& trace);

}  // namespace gtv::io
