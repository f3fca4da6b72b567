#include "fuzz_input.h"

#include <zlib.h>

#include <cstdio>

namespace gtv::fuzz {
namespace {

constexpr std::uint8_t kChunkBits = 0x3f;
constexpr std::uint8_t kGzipBit = 0x40;
constexpr std::size_t kChunkStepBytes = 64;

}  // namespace

// gzip with zlib's stream API (deflateInit2 with window bits 16 + 15 writes the gzip header and trailer).
std::string gzip(std::string_view text) {
  z_stream z{};
  std::string out;
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return out;
  out.resize(deflateBound(&z, text.size()) + 32);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) out.clear();
  return out;
}

bool decode_input(const std::uint8_t* data, std::size_t size, FuzzInput& out) {
  if (size == 0) return false;
  const std::uint8_t settings = data[0];
  out.options.chunk_bytes = kChunkStepBytes * (1 + (settings & kChunkBits));
  out.options.max_prefetch_workers = 1;  // the same path on every machine; the prefetcher still runs
  out.file = std::string_view(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((settings & kGzipBit) != 0) {
    out.gzip_storage = gzip(out.file);
    out.file = out.gzip_storage;
  }
  return true;
}

void invariant_broken(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

}  // namespace gtv::fuzz
