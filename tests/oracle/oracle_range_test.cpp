// The window's range statistics (analysis::range_stats, what a shift-drag shows) against the oracle's plain
// computation of the same numbers, on every bundled recording: each GPU's busy time in a window, and in the region
// of interest the time any GPU and two or more GPUs were busy. This binary links gtv_analysis beside the oracle's
// own sources; the oracle itself still shares no code with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gtv/analysis/range_stats.h"
#include "gtv/io/trace_file.h"
#include "oracle.h"

namespace gtv::oracle {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> bundled_recordings() {
  std::vector<std::string> out;
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(fs::path(GTV_SOURCE_DIR) / "resources/traces"))
    if (entry.is_regular_file() && entry.path().filename().string().ends_with(".json.gz"))
      out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(OracleRangeStats, BusyAndOverlapInWindowsAgreeOnEveryRecording) {
  const std::vector<std::string> files = bundled_recordings();
  ASSERT_GE(files.size(), 38u);  // resources/traces: h200x1, h200x2 and cpu
  std::size_t compared = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const Expected<Trace> trace = io::read_trace(path);
    ASSERT_TRUE(trace) << trace.error().message;
    const Oracle oracle(*trace);
    const Numbers& n = oracle.numbers();
    const TimeNs span_ns = n.trace_end_ns - n.trace_start_ns;
    // The middle half of the trace, a thin slice in it, and the region of interest.
    const std::pair<TimeNs, TimeNs> windows[] = {
        {n.trace_start_ns + span_ns / 4, n.trace_start_ns + 3 * span_ns / 4},
        {n.trace_start_ns + span_ns / 2, n.trace_start_ns + span_ns / 2 + span_ns / 97 + 1},
        {n.region_start_ns, n.region_end_ns}};
    for (const auto& [start_ns, end_ns] : windows) {
      const analysis::RangeStats stats = analysis::range_stats(*trace, start_ns, end_ns);
      for (const analysis::GpuRangeStats& gpu : stats.gpus) {
        EXPECT_EQ(gpu.busy_ns, oracle.busy_within(gpu.device, start_ns, end_ns)) << "GPU " << gpu.device;
        ++compared;
      }
    }
    const analysis::RangeStats region = analysis::range_stats(*trace, n.region_start_ns, n.region_end_ns);
    EXPECT_EQ(region.any_busy_ns, n.region.any_busy_ns);
    EXPECT_EQ(region.overlap_ns, n.region.overlap_ns);
    compared += 2;
  }
  EXPECT_GT(compared, 200u);
}

}  // namespace
}  // namespace gtv::oracle
