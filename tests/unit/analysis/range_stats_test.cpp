#include "gtv/analysis/range_stats.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

// Two GPUs; the range [100, 300) cuts kernels at both ends. Worked by hand:
// GPU 0: k1 [0,150) -> 50 inside, k2 [200,400) -> 100 inside, copy [220,260) inside k2: busy 150, 2 kernels, 1 copy.
// GPU 1: k3 [120,220) -> 100 inside, memset [500,600) outside: busy 100, 1 kernel, no memset.
// Both busy: [120,150) + [200,220) = 50. Any busy: [100,150) + [120,220) + [200,300) = [100,300) = 200.
// Host: a launch at [90,110) overlaps, one at [310,320) does not, a cpu_op is not a CUDA call.
TEST(RangeStats, CountsWhatRunsInTheRangeAndClipsBusyTime) {
  TraceBuilder b;
  kernel(b, 0, 7, "k1", 0, 150);
  kernel(b, 0, 7, "k2", 200, 200);
  memcpy_event(b, 0, 8, 220, 40);
  kernel(b, 1, 7, "k3", 120, 100);
  memset_event(b, 1, 7, 500, 100);
  host_call(b, 1, 1, "cudaLaunchKernel", 90, 20);
  host_call(b, 1, 1, "cudaLaunchKernel", 310, 10);
  host_call(b, 1, 1, "aten::mm", 100, 100, EventKind::CpuOp);
  const Trace t = build(b);
  const RangeStats s = range_stats(t, 100, 300);
  EXPECT_EQ(s.span_ns(), 200);
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].busy_ns, 150);
  EXPECT_EQ(s.gpus[0].kernels, 2u);
  EXPECT_EQ(s.gpus[0].copies, 1u);
  EXPECT_EQ(s.gpus[0].memsets, 0u);
  EXPECT_EQ(s.gpus[1].busy_ns, 100);
  EXPECT_EQ(s.gpus[1].kernels, 1u);
  EXPECT_EQ(s.gpus[1].memsets, 0u);
  EXPECT_EQ(s.overlap_ns, 50);
  EXPECT_EQ(s.any_busy_ns, 200);
  EXPECT_EQ(s.host_calls, 1u);
  const std::vector<std::string> lines = range_stats_lines(s, 0);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "In the 200 ns selected (100 ns to 300 ns after the trace start):");
  EXPECT_EQ(lines[1], "GPU 0: busy 150 ns (75%); 2 kernels, 1 copy running in it");
  EXPECT_EQ(lines[2], "GPU 1: busy 100 ns (50%); 1 kernel running in it");
  EXPECT_EQ(lines[3], "Two or more GPUs busy at once: 50 ns (25%); any GPU busy: 200 ns (100%)");
  EXPECT_EQ(lines[4], "Host: 1 CUDA call (runtime, driver, syncs) running in it");
}

TEST(RangeStats, AnEmptyRangeHasNothingInIt) {
  TraceBuilder b;
  kernel(b, 0, 7, "k1", 0, 150);
  const Trace t = build(b);
  const RangeStats s = range_stats(t, 100, 100);
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(range_stats_lines(s, 0).size(), 1u);
}

}  // namespace gtv::analysis
