// Every bundled recording and fixture as a happens-before graph: the unchanged replay reproduces every recorded
// start and end, and the critical path of the region tiles it (its segments' lengths sum to the region's).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gtv/causal/critical_path.h"
#include "gtv/causal/replay.h"
#include "gtv/io/trace_file.h"

namespace gtv::causal {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> bundled_traces() {
  const fs::path data = GTV_TEST_DATA_DIR;
  std::vector<fs::path> out;
  for (const fs::path& dir : {data / "pytorch", data.parent_path().parent_path() / "resources" / "traces"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.size() > 8 && name.ends_with(".json.gz")) out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(BundledReplay, UnchangedReplayReproducesEveryRecordingAndThePathTilesItsRegion) {
  const std::vector<fs::path> traces = bundled_traces();
  ASSERT_GE(traces.size(), 20u);
  for (const fs::path& path : traces) {
    SCOPED_TRACE(path.string());
    Expected<Trace> trace = io::read_trace(path.string());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    const HappensBefore g = HappensBefore::build(*trace);
    const Timeline t = replay(g);
    EXPECT_EQ(t.cycles_broken, 0u);
    TimeNs worst_ns = 0;
    for (NodeId n = 0; n < g.size(); ++n) {
      worst_ns = std::max(
          {worst_ns, std::abs(t.start_ns[n] - g.recorded_start(n)), std::abs(t.end_ns[n] - g.recorded_end(n))});
    }
    EXPECT_EQ(worst_ns, 0) << "the unchanged replay moved a node";
    const Window w = window_of(g);
    const CriticalPath cp = critical_path(g, t, w);
    if (g.size() == 0) {  // a CPU-only recording (no CUDA call, no GPU work): no path to walk
      EXPECT_TRUE(cp.segments.empty());
      continue;
    }
    EXPECT_EQ(cp.window.start_ns, w.start_ns);
    EXPECT_EQ(cp.window.end_ns, w.end_ns);
    EXPECT_FALSE(cp.truncated);
    TimeNs covered = 0, cursor = cp.window.start_ns;
    for (const Segment& s : cp.segments) {
      EXPECT_EQ(s.start_ns, cursor) << "a gap or overlap before a " << to_string(s.kind) << " segment";
      cursor = s.end_ns;
      covered += s.length_ns();
    }
    EXPECT_EQ(covered, cp.window.length_ns());
    std::cout << path.filename().string() << ": " << g.size() << " nodes, " << g.edges().size() << " edges, "
              << cp.segments.size() << " segments\n";
  }
}

}  // namespace
}  // namespace gtv::causal
