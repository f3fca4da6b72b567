#pragma once
// Reading and writing trace files. Read: Chrome Trace Event JSON with Kineto's conventions and Nsight Systems
// SQLite exports (`nsys export --type sqlite`), either plain or gzip, told apart by their first bytes. Written:
// Chrome Trace Event JSON with Kineto's conventions, plain or gzip.
#include <cstddef>
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
  std::uint64_t array_elements = 0;              // elements of traceEvents (rows of an nsys export's event tables)
  std::uint64_t events_skipped = 0;              // elements ignored (unknown phase, unmatched 'E', ...)
  std::map<std::string, std::uint64_t> skipped;  // reason -> count
  std::uint64_t json_bytes = 0;                  // size of the JSON text (after inflating)
  bool gzip = false;
  std::uint64_t chunks = 0;               // pieces of traceEvents parsed
  std::uint64_t chunks_parsed_ahead = 0;  // of those, parsed on worker threads (multi-core machines)
  unsigned prefetch_workers = 0;          // the worker threads asked for (0: all parsed in the reading thread)
  std::uint64_t peak_buffered_bytes = 0;  // most JSON text held at once by the reader's window
};

inline constexpr std::uint64_t kDefaultMaxValueBytes = std::uint64_t{64} << 20;   // 64 MiB
inline constexpr std::uint64_t kDefaultMaxStreamBytes = std::uint64_t{64} << 30;  // 64 GiB

struct ReadOptions {
  ProgressFn progress = nullptr;
  void* progress_context = nullptr;
  ReadStats* stats = nullptr;  // filled when set
  // Limits; 0 takes the environment variable named in the comment (bytes, or with a K/M/G suffix), else the default.
  // One top-level JSON value other than traceEvents, or one string or row of an SQLite export:
  // GTV_MAX_VALUE_BYTES, 64 MiB.
  std::uint64_t max_value_bytes = 0;
  // All input from a pipe or device, and an SQLite database held in memory whole (inflated from gzip or read
  // from a stream): GTV_MAX_STREAM_BYTES, 64 GiB.
  std::uint64_t max_stream_bytes = 0;
  // For tests and fuzzing: the size of the pieces traceEvents is cut into (0: 1 MiB; those parsed ahead on worker
  // threads are half of it). Small pieces let a few hundred bytes of input reach the cut search and the prefetcher.
  std::size_t chunk_bytes = 0;
  // For fuzzing: at most this many threads parse traceEvents ahead (0: as many as the machine's cores allow, up to
  // 4). The fuzz targets ask for one, so an input takes the same path on every machine and a 16-core run does not
  // start four threads for every file it reads.
  unsigned max_prefetch_workers = 0;
};

// Reads a trace in any format gtv knows (.json, .json.gz, an nsys .sqlite export, plain or gzip): the format is
// detected from the first bytes, never from the name. Errors are one line that names the file and, where known,
// the byte offset, event index or SQLite table.
[[nodiscard]] Expected<Trace> read_trace(const std::string& path, const ReadOptions& options = {});
// The same from bytes already in memory; `name` is used in error messages.
[[nodiscard]] Expected<Trace> read_trace_from_memory(std::string_view bytes, const std::string& name,
                                                     const ReadOptions& options = {});

// Writes the trace; gzip when path ends in ".gz". Never destroys what path names: a regular file is replaced
// atomically (temporary file next to it, then rename) keeping its mode, a symlink's target is written, a FIFO or
// device (/dev/stdout) is written into, a directory is refused; on failure or SIGINT/SIGTERM/SIGHUP the
// temporary file is removed and path is left as it was (docs/cli.md, convert).
[[nodiscard]] Status write_trace(const Trace& trace, const std::string& path);
// The JSON text of the trace (uncompressed).
[[nodiscard]] std::string write_trace_to_string(const Trace& trace);

// Where one rank of a run writes its own file, beside the run's: ".rankN" before the extension ("run.json.gz" ->
// "run.rank1.json.gz", "out/run.json" -> "out/run.rank1.json", "run" -> "run.rank1").
[[nodiscard]] std::string rank_file_path(std::string_view path, std::int64_t rank);

}  // namespace gtv::io
