// The level-of-detail rule on real recordings, checked by brute force: at the first view (the whole trace at
// 1600 px) and at zooms around the busiest stretch, every event at least one pixel wide comes back alone, and the
// spans of each depth account for every event that overlaps the window exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/model/lod.h"

namespace gtv {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> bundled_recordings() {
  std::vector<fs::path> out;
  const fs::path traces = fs::path(GTV_TEST_DATA_DIR).parent_path().parent_path() / "resources" / "traces";
  for (const auto& e : fs::recursive_directory_iterator(traces)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 8 && name.compare(name.size() - 8, 8, ".json.gz") == 0)
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What query_lod must return for one lane and window, computed event by event.
void check_window(const Trace& trace, LaneIndex lane_index, const LodRequest& request, const std::string& where) {
  const Lane& lane = trace.lane(lane_index);
  const double ns_per_px = static_cast<double>(request.t1_ns - request.t0_ns) / request.width_px;
  const std::vector<LodSpan> spans = query_lod(lane, request);
  std::map<std::uint32_t, const LodSpan*> alone;  // event index -> its single span
  std::vector<std::size_t> counted(static_cast<std::size_t>(lane.depth_count()), 0);
  for (const LodSpan& s : spans) {
    counted[s.depth] += s.count;
    if (s.count == 1) alone[s.first_index] = &s;
  }
  std::vector<std::size_t> overlapping(counted.size(), 0);
  for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    if (e.end_ns() <= request.t0_ns || e.start_ns >= request.t1_ns) continue;
    ++overlapping[e.depth];
    if (static_cast<double>(e.duration_ns) >= ns_per_px) {
      EXPECT_TRUE(alone.count(i) != 0) << where << ": " << trace.name(e) << " (" << e.duration_ns << " ns, a pixel is "
                                       << ns_per_px << " ns) was merged into a block";
    }
  }
  EXPECT_EQ(counted, overlapping) << where << ": spans must account for each overlapping event once";
}

TEST(BundledLod, EveryEventAPixelWideIsDrawnAloneOnEveryRecording) {
  const std::vector<fs::path> files = bundled_recordings();
  ASSERT_GE(files.size(), 20u) << "the bundled recordings are missing";
  for (const fs::path& file : files) {
    const Expected<Trace> trace = io::read_trace(file.string());
    ASSERT_TRUE(trace.ok()) << file << ": " << trace.error().message;
    const TimeNs start_ns = trace->start_ns(), end_ns = trace->end_ns();
    const TimeNs length_ns = std::max<TimeNs>(end_ns - start_ns, 1);
    for (LaneIndex l = 0; l < trace->lanes().size(); ++l) {
      const std::string where = file.filename().string() + " lane " + trace->lane(l).name;
      check_window(*trace, l, {start_ns, end_ns, 1600}, where + " (fit)");
      for (const TimeNs zoom : {10, 100}) {  // a tenth and a hundredth of the trace, in its middle
        const TimeNs mid_ns = start_ns + length_ns / 2, half_ns = std::max<TimeNs>(length_ns / zoom / 2, 1);
        check_window(*trace, l, {mid_ns - half_ns, mid_ns + half_ns, 1600},
                     where + " (zoom " + std::to_string(zoom) + ")");
      }
    }
  }
}

}  // namespace
}  // namespace gtv
