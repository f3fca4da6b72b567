#pragma once
// What the fuzz targets share: the first input byte picks the reader's settings (so the fuzzer explores them
// too), the rest is the file; a broken invariant is reported in one line and crashes on purpose.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/io/trace_file.h"

namespace gtv::fuzz {

struct FuzzInput {
  io::ReadOptions options;
  std::string_view file;  // the bytes the reader sees (points into the input or into gzip_storage)
  std::string gzip_storage;
};

// Byte 0: bits 0-5 choose the chunk size, 64..4096 bytes, so that inputs of a few hundred bytes already cross
// chunk boundaries and start the prefetcher; bit 6 gzips the rest before reading it (valid gzip reaches the
// inflating reader with meaningful JSON; raw inputs starting with 1f 8b cover broken gzip). False for empty input.
[[nodiscard]] bool decode_input(const std::uint8_t* data, std::size_t size, FuzzInput& out);

// gzip of text (zlib's fastest level), or empty when zlib fails.
[[nodiscard]] std::string gzip(std::string_view text);

// Prints "fuzz invariant broken: <what>" to stderr and traps: libFuzzer reports it as a crash with the input.
[[noreturn]] void invariant_broken(const std::string& what);

inline void require(bool condition, const char* what) {
  if (!condition) invariant_broken(what);
}

}  // namespace gtv::fuzz
