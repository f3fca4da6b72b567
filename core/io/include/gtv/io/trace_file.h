#pragma once
// Reading and writing trace files: Chrome Trace Event JSON with Kineto's conventions, plain or gzip.
#include <cstdint>
#include <map>
#include <string>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv::io {

// Progress of a long read, 0..1; return false to cancel.
using ProgressFn = bool (*)(void* context, double fraction);

// What a read did besides building the trace (also summarized in metadata().notes when something was skipped).
struct ReadStats {
  std::uint64_t array_elements = 0;             // elements of traceEvents
  std::uint64_t events_skipped = 0;             // elements ignored (unknown phase, unmatched 'E', ...)
  std::map<std::string, std::uint64_t> skipped;  // reason -> count
  std::uint64_t json_bytes = 0;                 // size of the JSON text (after inflating)
  bool gzip = false;
  std::uint64_t chunks = 0;                     // pieces of traceEvents parsed
  std::uint64_t chunks_parsed_ahead = 0;        // of those, parsed on worker threads (multi-core machines)
};

inline constexpr std::uint64_t kDefaultMaxInflatedBytes = std::uint64_t{4} << 30;  // 4 GiB

struct ReadOptions {
  ProgressFn progress = nullptr;
  void* progress_context = nullptr;
  ReadStats* stats = nullptr;                                // filled when set
  std::uint64_t max_inflated_bytes = kDefaultMaxInflatedBytes;  // bound on gzip output
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
