// libFuzzer target: reads any bytes as a trace (plain or gzip, small chunks); a trace that reads must keep its
// shape when written and read back, with the default chunk size and with the fuzzed one.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "gtv/io/trace_file.h"
#include "trace_shape.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gtv;
  fuzz::FuzzInput input;
  if (!fuzz::decode_input(data, size, input)) return 0;
  const Expected<Trace> trace = io::read_trace_from_memory(input.file, "fuzz", input.options);
  if (!trace) {
    fuzz::require(!trace.error().message.empty(), "read failed with an empty message");
    return 0;
  }
  fuzz::check_model(*trace);
  const std::string written = io::write_trace_to_string(*trace);
  for (const bool small_chunks : {false, true}) {
    io::ReadOptions options;
    if (small_chunks) options.chunk_bytes = input.options.chunk_bytes;
    options.max_prefetch_workers = input.options.max_prefetch_workers;
    const Expected<Trace> reread = io::read_trace_from_memory(written, "fuzz-rewritten", options);
    if (!reread) fuzz::invariant_broken("the written trace does not read back: " + reread.error().message);
    fuzz::check_same_shape(*trace, *reread, small_chunks ? "write + re-read (small chunks)" : "write + re-read");
  }
  return 0;
}
