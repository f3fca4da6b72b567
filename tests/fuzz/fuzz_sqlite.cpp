// libFuzzer target: reads any bytes as an Nsight Systems SQLite export. The input after the settings byte is the
// database after its 16-byte magic ("SQLite format 3\0" is put in front, so every input reaches SQLite); plain, it
// is read in place from memory, with the gzip bit it goes through the inflating reader into a temporary file. A
// trace that reads must keep its shape when written and read back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "gtv/io/trace_file.h"
#include "trace_shape.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gtv;
  if (size == 0) return 0;
  std::string file("SQLite format 3", 16);  // with its terminating NUL, as in every SQLite file
  file.append(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz::FuzzInput input;
  const std::uint8_t settings = data[0];
  if (!fuzz::decode_input(&settings, 1, input)) return 0;
  const std::string stored = (settings & 0x40) != 0 ? fuzz::gzip(file) : file;
  const Expected<Trace> trace = io::read_trace_from_memory(stored, "fuzz.sqlite", input.options);
  if (!trace) {
    fuzz::require(!trace.error().message.empty(), "read failed with an empty message");
    return 0;
  }
  fuzz::check_model(*trace);
  const std::string written = io::write_trace_to_string(*trace);
  const Expected<Trace> reread = io::read_trace_from_memory(written, "fuzz-rewritten", {});
  if (!reread) fuzz::invariant_broken("the written trace does not read back: " + reread.error().message);
  fuzz::check_same_shape(*trace, *reread, "write + re-read");
  return 0;
}
