#include "test_util.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gtv::io::test {

std::array<std::size_t, kEventKindCount> count_kinds(const Trace& trace) {
  std::array<std::size_t, kEventKindCount> counts{};
  for (const Lane& lane : trace.lanes())
    for (const Event& e : lane.events) ++counts[static_cast<std::size_t>(e.kind)];
  return counts;
}

std::size_t count_lanes(const Trace& trace, LaneKind kind) {
  std::size_t n = 0;
  for (const Lane& lane : trace.lanes()) n += lane.key.kind == kind ? 1 : 0;
  return n;
}

std::string scratch_dir(const std::string& test_name) {
  const std::filesystem::path dir = std::filesystem::path(GTV_BINARY_DIR) / "io_test_scratch" / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string gzip_bytes(const std::string& plain) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&zs, static_cast<uLong>(plain.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  zs.avail_in = static_cast<uInt>(plain.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace gtv::io::test
