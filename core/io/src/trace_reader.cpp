// The importer seam: read_trace and read_trace_from_memory open the input, its first bytes choose the reader
// (trace_format.h), once: Nsight Systems SQLite exports go to nsys/nsys_reader.h, JSON to json/json_reader.h.
#include <string>

#include "gtv/io/trace_file.h"
#include "input/input_bytes.h"
#include "input/read_limits.h"
#include "json/json_reader.h"
#include "json/json_scan.h"
#include "nsys/nsys_reader.h"
#include "nsys/sqlite_spill.h"
#include "read_input.h"
#include "trace_format.h"

namespace gtv::io {
namespace {

// Reads input by the format its first bytes name. plain_path names the plain regular file input was opened from,
// when there is one: an Nsight Systems export is then read in place, SQLite reading the pages it needs rather
// than the whole file.
Expected<Trace> read_sniffed(InputBytes& input, const std::string& name, const ReadOptions& options,
                             const std::string* plain_path) {
  input.fill_to(kFormatSniffBytes);
  if (input.error()) return *input.error();
  const std::string_view first = input.view();
  switch (detect_trace_format(first)) {
    case TraceFormat::ChromeJson:
      return read_json_trace(input, name, options);
    case TraceFormat::NsysSqlite: {
      if (plain_path != nullptr && input.random_access()) return read_nsys_export_file(*plain_path, options);
      // Plain bytes the caller holds are read in place; a database inflated from gzip or read from a pipe or
      // device goes to a temporary file first (sqlite_spill.h).
      if (input.writable() == nullptr && !input.was_gzip()) {
        return read_nsys_export_bytes(input.view(), name, false, options);
      }
      Expected<SpilledDatabase> temp = spill_sqlite_to_temp_file(input, name, max_stream_bytes(options));
      if (!temp) return temp.error();
      return read_nsys_export_temp_file(*temp, name, input.was_gzip(), options);
    }
    case TraceFormat::Unknown:
      break;
  }
  const std::size_t pos = first_significant_byte(first);
  return Error{name + ": " + (input.was_gzip() ? "inflated byte " : "byte ") + std::to_string(pos) + ": " +
               unknown_format_message(describe_char(first, pos))};
}

}  // namespace

Expected<Trace> read_trace_input(InputBytes& input, const std::string& name, const ReadOptions& options) {
  return read_sniffed(input, name, options, nullptr);
}

Expected<Trace> read_trace_from_memory(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  if (bytes.empty()) return Error{name + ": file is empty"};
  InputBytes input = InputBytes::from_memory(bytes, name, options);
  return read_sniffed(input, name, options, nullptr);
}

Expected<Trace> read_trace(const std::string& path, const ReadOptions& options) {
  Expected<InputBytes> input = InputBytes::open(path, options);
  if (!input) return input.error();
  return read_sniffed(*input, path, options, &path);
}

}  // namespace gtv::io
