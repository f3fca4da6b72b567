#include "gtv/analysis/tracing_cost.h"

#include <gtest/gtest.h>

#include "gtv/analysis/report.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs ms = kNsPerMs;
constexpr TimeNs us = kNsPerUs;

const Region kTimedLoop{90 * ms, 150 * ms, true, "the timed loop", {{90 * ms, 150 * ms}}, "the timed loop"};

// A gtv recording: CUPTI's records on the application thread (one inside the timed loop, two overlapping ones
// counted once) and on CUPTI's own buffer thread; the driver's lazy loading is not the tracer's cost.
Trace gtv_recording() {
  TraceBuilder b;
  b.metadata().source_tool = "gtv 0.1.0";
  b.metadata().notes = {"CUPTI: 5523 records delivered, 0 dropped"};
  host_call(b, 1, 10, "cudaLaunchKernel", 0, 10 * us);
  host_call(b, 1, 10, "CUPTI buffer request", 5 * ms, 1 * ms, EventKind::Overhead);
  host_call(b, 1, 10, "CUPTI instrumentation", 5500 * us, 1 * ms, EventKind::Overhead);  // overlaps: 1.5 ms in all
  host_call(b, 1, 10, "lazy function loading", 20 * ms, 3 * ms, EventKind::Overhead);
  host_call(b, 1, 10, "CUPTI resource", 100 * ms, 2 * ms, EventKind::Overhead);
  host_call(b, 1, 99, "CUPTI buffer flush", 50 * ms, 1 * ms, EventKind::Overhead);
  host_call(b, 1, 99, "CUPTI buffer flush", 200 * ms, 1 * ms, EventKind::Overhead);
  host_call(b, 1, 99, "CUPTI buffer request", 202 * ms, 500 * us, EventKind::Overhead);
  return build(b);
}
}  // namespace

TEST(TracingCost, SplitsTracedThreadsFromTheTracersThread) {
  const TracingCost c = analyze_tracing_cost(gtv_recording(), kTimedLoop);
  EXPECT_TRUE(c.known);
  EXPECT_EQ(c.overhead_records, 6u);
  EXPECT_EQ(c.buffer_flushes, 2u);
  EXPECT_EQ(c.tracer_threads, 1u);
  EXPECT_EQ(c.on_traced_threads_ns, 3500 * us);
  EXPECT_EQ(c.inside_region_ns, 2 * ms);
  EXPECT_EQ(c.on_tracer_threads_ns, 2500 * us);
  EXPECT_TRUE(c.dropped_known);
  EXPECT_EQ(c.dropped_records, 0);
  EXPECT_EQ(c.line,
            "Tracing cost: CUPTI's own overhead records total 3.50 ms on the traced threads (2.00 ms inside the timed "
            "loop) and 2.50 ms on its own thread; 2 buffer flushes; 0 records dropped.");
}

// A trace of gtv-cli record carries what its recorder measured on itself in each process: the line adds it up.
TEST(TracingCost, TheRecordersOwnMeasurementsAreSummedOverProcesses) {
  TraceBuilder b;
  b.metadata().source_tool = "gtv 0.1.0";
  b.metadata().recorder_costs = {{100, 40 * ms, 2 * ms, 5 * ms, 1000 * ms, 8, 9000, 9000},
                                 {200, 10 * ms, 1 * ms, 1 * ms, 500 * ms, 2, 1000, 900}};
  host_call(b, 100, 100, "cudaLaunchKernel", 0, 10 * us);
  const TracingCost c = analyze_tracing_cost(build(b), kTimedLoop);
  EXPECT_EQ(c.line,
            "Tracing cost: no CUPTI overhead records in this trace (0 records dropped). The recorder measured itself "
            "(gtv-cli "
            "record, 2 processes): start-up 50.0 ms inside the first CUDA call, 3.00 ms handling CUPTI's buffers on "
            "CUPTI's thread during 1.50 s traced (0.20% of it), 6.00 ms flushing at exit.");
}

TEST(TracingCost, NoneInsideTheRegion) {
  const Region before{300 * ms, 400 * ms, true, "the timed loop", {{300 * ms, 400 * ms}}, "the timed loop"};
  const TracingCost c = analyze_tracing_cost(gtv_recording(), before);
  EXPECT_EQ(c.inside_region_ns, 0);
  EXPECT_NE(c.line.find("(none inside the timed loop)"), std::string::npos) << c.line;
}

TEST(TracingCost, NotRecorded) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 10 * us);
  kernel(b, 0, 7, "gemm", 0, 1 * ms);
  const Trace t = build(b);
  const TracingCost c =
      analyze_tracing_cost(t, Region{0, 1 * ms, false, "the whole trace", {{0, 1 * ms}}, "the whole trace"});
  EXPECT_FALSE(c.known);
  EXPECT_FALSE(c.dropped_known);
  EXPECT_EQ(c.line, "Tracing cost: not recorded in this trace.");
}

TEST(TracingCost, KinetoRecordsWithoutDroppedCounts) {
  TraceBuilder b;
  b.metadata().source_tool = "PyTorch Profiler (Kineto)";
  host_call(b, 1, 1, "aten::mm", 0, 1 * ms, EventKind::CpuOp);
  host_call(b, 1, 1, "Activity Buffer Request", 2 * ms, 12 * us, EventKind::Overhead);
  host_call(b, 1, 1, "Lazy Function Loading", 3 * ms, 40 * us, EventKind::Overhead);  // the driver's, not CUPTI's
  const Trace t = build(b);
  const TracingCost c =
      analyze_tracing_cost(t, Region{0, 4 * ms, false, "the whole trace", {{0, 4 * ms}}, "the whole trace"});
  EXPECT_TRUE(c.known);
  EXPECT_EQ(c.overhead_records, 1u);
  EXPECT_EQ(c.line,
            "Tracing cost: CUPTI's own overhead records total 12.0 us on the traced threads; dropped records not "
            "recorded.");
}

TEST(TracingCost, KinetoRecordsOnNoThread) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::mm", 0, 1 * ms, EventKind::CpuOp);
  host_call(b, -1, 0, "Activity Buffer Request", 2 * ms, 2 * ms, EventKind::Overhead);  // Kineto: pid -1, tid 0
  host_call(b, -1, 0, "Lazy Function Loading", 5 * ms, 40 * us, EventKind::Overhead);
  const Trace t = build(b);
  const TracingCost c =
      analyze_tracing_cost(t, Region{0, 6 * ms, false, "the whole trace", {{0, 6 * ms}}, "the whole trace"});
  EXPECT_EQ(c.tracer_threads, 0u);
  EXPECT_EQ(c.on_traced_threads_ns, 0);
  EXPECT_EQ(c.on_unnamed_threads_ns, 2 * ms);
  EXPECT_EQ(c.line,
            "Tracing cost: CUPTI's own overhead records total 2.00 ms on a thread the trace does not name; dropped "
            "records not recorded.");
}

TEST(TracingCost, TracerRecordNames) {
  EXPECT_TRUE(is_tracer_record("CUPTI buffer flush"));
  EXPECT_TRUE(is_tracer_record("Buffer Flush"));
  EXPECT_TRUE(is_tracer_record("Activity Buffer Request"));
  EXPECT_FALSE(is_tracer_record("lazy function loading"));
  EXPECT_FALSE(is_tracer_record("command buffer full"));
  EXPECT_FALSE(is_tracer_record("module loading"));
}

TEST(TracingCost, InTheReport) {
  const Report r = analyze(gtv_recording());
  const std::string json = format_report(r, Format::Json);
  EXPECT_NE(json.find("\"tracing_cost\""), std::string::npos);
  EXPECT_NE(json.find("\"buffer_flushes\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"dropped_records\": 0"), std::string::npos) << json;
  EXPECT_NE(format_report(r, Format::Text).find("Tracing cost: CUPTI's own overhead records total"), std::string::npos);
}

}  // namespace gtv::analysis
