#pragma once
// Helpers shared by the io tests.
#include <array>
#include <string>

#include "gtv/model/trace.h"

namespace gtv::io::test {

// Events per EventKind over all lanes.
[[nodiscard]] std::array<std::size_t, kEventKindCount> count_kinds(const Trace& trace);
[[nodiscard]] std::size_t count_lanes(const Trace& trace, LaneKind kind);
// A fresh empty directory under the build tree for files a test writes.
[[nodiscard]] std::string scratch_dir(const std::string& test_name);
[[nodiscard]] std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);
[[nodiscard]] std::string gzip_bytes(const std::string& plain);

}  // namespace gtv::io::test
