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

// Replays along the plan's order give every node the times the searching replay gives, unchanged and under
// removals of each kind: parts, each kind of edge, own time and gaps of some nodes only.
TEST(BundledReplay, ThePlansOrderGivesTheSearchingReplaysTimesUnderEveryRemoval) {
  for (const fs::path& path : bundled_traces()) {
    SCOPED_TRACE(path.string());
    Expected<Trace> trace = io::read_trace(path.string());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    const HappensBefore g = HappensBefore::build(*trace);
    const ReplayPlan plan(g);
    std::vector<Removal> removals(6);
    removals[1].parts = bit(PartKind::LazyLoading) | bit(PartKind::TracingOverhead) | bit(PartKind::Unrecorded);
    removals[2].edges = bit(EdgeKind::Sync) | bit(EdgeKind::ImplicitSync) | bit(EdgeKind::QueueFull);
    removals[3].edges =
        bit(EdgeKind::EventWait) | bit(EdgeKind::Handoff) | bit(EdgeKind::Collective) | bit(EdgeKind::LazyLoadDrain);
    removals[3].applies_to = [](NodeId n) { return n % 3 != 0; };
    removals[4].drop_own_time = [&g](NodeId n) { return g.node(n).kind == NodeKind::HostCall && n % 2 == 0; };
    removals[5].drop_gap = [](NodeId n) { return n % 5 != 1; };
    removals[5].parts = bit(PartKind::TracingOverhead);
    for (std::size_t i = 0; i < removals.size(); ++i) {
      SCOPED_TRACE("removal " + std::to_string(i));
      const Timeline searched = replay(g, removals[i]);
      const Timeline ordered = plan.replay(removals[i]);
      EXPECT_EQ(ordered.start_ns, searched.start_ns);
      EXPECT_EQ(ordered.end_ns, searched.end_ns);
      EXPECT_EQ(ordered.cycles_broken, searched.cycles_broken);
    }
    EXPECT_EQ(plan.unchanged().start_ns, replay(g).start_ns);
    EXPECT_EQ(plan.unchanged().end_ns, replay(g).end_ns);
  }
}

}  // namespace
}  // namespace gtv::causal
