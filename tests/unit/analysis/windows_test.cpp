// Every number is said with the window it was computed on: the timed measurements themselves, the span from the
// first to the last of them, or the span of the GPU work.
#include <gtest/gtest.h>

#include <algorithm>

#include "gtv/analysis/report.h"
#include "gtv/model/counter_names.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs ms = kNsPerMs;

// Two timed measurements, [0,10) ms and [40,50) ms, with a 10 ms module load [20,30) ms between them and PyTorch's
// reserved memory growing by 2.4 GB in the gap, flat inside both.
Trace two_measurements_with_a_gap() {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 1 * ms, 10 * kNsPerUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "k", 2 * ms, 3 * ms, 1);
  host_call(b, 1, 1, "cuLibraryLoadData", 20 * ms, 10 * ms, EventKind::Driver);
  host_call(b, 1, 1, "cudaLaunchKernel", 41 * ms, 10 * kNsPerUs, EventKind::Runtime, 2);
  kernel(b, 0, 7, "k", 42 * ms, 3 * ms, 2);
  b.add_measurement(Measurement{"first", MeasurementMethod::StopwatchSync, 10 * ms, 0, 10 * ms, 1, 1});
  b.add_measurement(Measurement{"second", MeasurementMethod::StopwatchSync, 10 * ms, 40 * ms, 50 * ms, 1, 1});
  const std::string reserved(counters::kTorchReserved);
  b.add_counter_sample(0, reserved, {0, 1e8});
  b.add_counter_sample(0, reserved, {25 * ms, 2.5e9});
  b.add_counter_sample(0, reserved, {45 * ms, 2.5e9});
  return build(b);
}

}  // namespace

TEST(Windows, MeasurementsWithGapsNameTheirSpanAndKeepWhatTheyMeasured) {
  const Trace t = two_measurements_with_a_gap();
  const Region r = region_of_interest(t, analyze_timing_truth(t));
  EXPECT_EQ(r.start_ns, 0);
  EXPECT_EQ(r.end_ns, 50 * ms);
  EXPECT_EQ(r.measured, (std::vector<Interval>{{0, 10 * ms}, {40 * ms, 50 * ms}}));
  EXPECT_EQ(r.measured_name, "the timed measurements");
  EXPECT_EQ(r.name, "the span of the timed measurements");
}

TEST(Windows, FirstUseWorkBetweenTheMeasurementsDidNotFallInsideThem) {
  // The module load lies in the gap: none of it is inside the measurements, all 10 ms of it inside their span.
  const Report r = analyze(two_measurements_with_a_gap());
  std::string warmup;
  for (const std::string& line : r.verdict)
    if (line.rfind("Warm-up: ", 0) == 0) warmup = line;
  EXPECT_NE(warmup.find("; none of the first-use work fell inside the timed measurements (10.0 ms fell in the gaps "
                        "between them, which were not timed)."),
            std::string::npos)
      << warmup;
  EXPECT_EQ(warmup.find("10.0 ms of the first-use work fell inside"), std::string::npos) << warmup;
}

TEST(Windows, MemoryGrowthBetweenTheMeasurementsIsSaidApart) {
  const Report r = analyze(two_measurements_with_a_gap());
  ASSERT_EQ(r.warmup.memory.size(), 1u);
  const MemoryGrowth& g = r.warmup.memory[0];
  EXPECT_DOUBLE_EQ(g.steady_growth_bytes, 0.0);
  EXPECT_TRUE(g.has_gaps);
  EXPECT_DOUBLE_EQ(g.gap_growth_bytes, 2.4e9);
  const std::string line =
      "PyTorch's reserved memory on GPU 0 stayed at 100.00 MB before the timed measurements, and did not grow in the "
      "timed measurements; in the gaps between them, which were not timed, it grew by 2.40 GB (counter \"reserved by "
      "PyTorch (bytes)\").";
  EXPECT_NE(std::find(r.warmup.lines.begin(), r.warmup.lines.end(), line), r.warmup.lines.end())
      << ::testing::PrintToString(r.warmup.lines);
}

TEST(Windows, TheGpuLevelsTableNamesItsWindow) {
  // GPU 0 [0,100), GPU 1 [50,150); the host runs on until 400 ns. The levels' shares are of the 150 ns from the
  // first GPU work to the last, not of the 400 ns trace: 1 GPU 100 ns (67%), 2 GPUs 50 ns (33%).
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 1, 7, "b", 50, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 0, 400);
  const std::string text = format_report(analyze(build(b)), Format::Markdown);
  EXPECT_NE(text.find("| GPUs busy | time | share of 150 ns, first to last GPU work |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 1 | 100 ns | 66.7% |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 2 | 50 ns | 33.3% |"), std::string::npos) << text;
  EXPECT_NE(text.find("Over the whole trace, at least one GPU busy: 150 ns; two or more: 50 ns (33%)."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("share of active time"), std::string::npos) << text;
}

// A profiler trace ends with Kineto's "Record Window End" instant, milliseconds after the last recorded call: the
// whole trace is the program's time, first to last recorded activity (one launch at 0, its 100 us kernel at 20 us,
// a synchronize that returns at 125 us), and the 4.875 ms to the marker is no one's work.
TEST(Windows, TheProfilersClosingMarkerIsNotProgramTime) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 10 * kNsPerUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "k", 20 * kNsPerUs, 100 * kNsPerUs, 1);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 15 * kNsPerUs, 110 * kNsPerUs, EventKind::Runtime);
  host_call(b, 2, 2, "Record Window End", 5 * ms, 0, EventKind::Instant);
  const Trace t = build(b);
  EXPECT_EQ(t.end_ns(), 5 * ms);
  EXPECT_EQ(t.activity_end_ns(), 125 * kNsPerUs);
  const Report r = analyze(t);
  EXPECT_EQ(r.region.end_ns, 125 * kNsPerUs);
  EXPECT_EQ(r.busy.window_end_ns, 125 * kNsPerUs);
  EXPECT_EQ(r.critical.length_ns, 125 * kNsPerUs);
  for (const PathSegment& s : r.critical.segments) EXPECT_NE(s.kind, causal::SegmentKind::HostOwnWork);
  const std::string text = format_report(r, Format::Markdown);
  EXPECT_NE(text.find("busy 100.0 us of 125.0 us (80%)"), std::string::npos) << text;
  EXPECT_NE(text.find("- Time span: 125.0 us of recorded activity, 0 ns to 125.0 us (the whole trace in this "
                      "report; the file runs 5.00 ms with the profiler's own markers, such as Kineto's Record Window "
                      "End, which are not program time)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("Time span: 5.00 ms"), std::string::npos);
}

}  // namespace gtv::analysis
