#include "gtv/analysis/report.h"

#include <gtest/gtest.h>

#include "recording_helpers.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs ms = kNsPerMs;

// Two GPUs launched from one thread: 30 ms of overlap, then a pageable copy that blocks the host.
Trace classroom_trace() {
  TraceBuilder b;
  b.metadata().source_tool = "gtv 0.1.0";
  b.metadata().scenario = "method 1";
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 10 * kNsPerUs, EventKind::Runtime, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 1 * ms, 10 * kNsPerUs, EventKind::Runtime, 2);
  kernel(b, 0, 7, "void at::native::gemm<float>(float*)", 2 * ms, 40 * ms, 1);
  kernel(b, 1, 7, "void at::native::gemm<float>(float*)", 12 * ms, 40 * ms, 2);
  host_call(b, 1, 1, "cudaMemcpyAsync", 2 * ms, 55 * ms, EventKind::Runtime, 3);
  memcpy_event(b, 1, 7, 52 * ms, 5 * ms, {4096, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pageable, -1},
               3);
  b.add_measurement(Measurement{"forward", MeasurementMethod::StopwatchNoSync, 2 * ms, 0, 2 * ms, 1, 1});
  return build(b);
}

int bracket_balance(const std::string& json) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '"' && (i == 0 || json[i - 1] != '\\')) in_string = !in_string;
    if (!in_string) depth += (json[i] == '{' || json[i] == '[') - (json[i] == '}' || json[i] == ']');
  }
  return depth;
}
}  // namespace

TEST(Report, VerdictFirstThenNumbers) {
  const Trace t = classroom_trace();
  const Report r = analyze(t);
  ASSERT_GE(r.verdict.size(), 5u);
  // The measured "forward" launched both kernels: its truth runs to the end of the later one, 52 ms, so the region
  // is [0, 52 ms): GPU 0 busy [2, 42), GPU 1 busy [12, 52), overlapping [12, 42).
  EXPECT_EQ(r.region.start_ns, 0);
  EXPECT_EQ(r.region.end_ns, 52 * ms);
  EXPECT_EQ(r.region.name, "the forward");
  EXPECT_EQ(r.verdict[0],
            "In the forward, 2 GPUs overlapped for 30.0 ms of 50.0 ms (60%); effective parallelism 1.60 of 2 possible; "
            "ideal (busiest GPU, GPU 0, alone) 40.0 ms.");
  // GPU 1's kernel [12, 52) is 40 of the region's 52 ms, the end of its critical path.
  EXPECT_EQ(r.verdict[1], "What bounds the forward: GPU 1 computing, 77% of its critical path.");
  // GPU 0 is idle [0, 2) and [42, 52): 12 ms of 52 ms, 11 of them while GPU 1's work (and its start after its
  // launch at 1 ms) bounded the region.
  EXPECT_EQ(r.verdict[2], "GPU 0 idle for 23% of the forward: mostly bound by GPU 1's work, 11.0 ms of 12.0 ms idle.");
  EXPECT_EQ(r.verdict[3], "cudaMemcpyAsync to pageable memory blocked the host for 55.0 ms (1 call(s), thread 1).");
  // The whole trace, start-up included, is still told in the concurrency section.
  EXPECT_NE(format_report(r, Format::Text)
                .find("Over the whole trace, start-up included: 2 GPUs overlapped for 30.0 ms of 55.0 ms (55%)"),
            std::string::npos);
  const std::string text = format_report(r, Format::Text);
  EXPECT_EQ(text.rfind("GPU timeline analysis: method 1\n", 0), 0u) << text;
  const std::size_t verdict_at = text.find("2 GPUs overlapped");
  const std::size_t numbers_at = text.find("GPU busy time\n");
  ASSERT_NE(verdict_at, std::string::npos);
  ASSERT_NE(numbers_at, std::string::npos);
  EXPECT_LT(verdict_at, numbers_at);
  EXPECT_NE(text.find("  gemm        2  80.0 ms  40.0 ms  40.0 ms  40.0 ms  100.0%\n"), std::string::npos) << text;
  EXPECT_EQ(text, format_report(analyze(t), Format::Text));  // deterministic
}

TEST(Report, MarkdownAndJson) {
  const Trace t = classroom_trace();
  const Report r = analyze(t);
  const std::string md = format_report(r, Format::Markdown);
  EXPECT_EQ(md.rfind("# GPU timeline analysis: method 1\n\n**In the forward, 2 GPUs overlapped", 0), 0u) << md;
  EXPECT_NE(md.find("## Kernels\n"), std::string::npos);
  EXPECT_NE(md.find("| kernel | count | total | mean | min | max | share |\n|---|---:|"), std::string::npos) << md;
  const std::string json = format_report(r, Format::Json);
  EXPECT_EQ(bracket_balance(json), 0);
  EXPECT_NE(json.find("\"effective_parallelism\": 1.5455"), std::string::npos) << json;
  EXPECT_NE(json.find("\"overlap_ns\": 30000000"), std::string::npos);
  // The keys the JSON report promises (docs/cli.md), each present once.
  for (const char* key : {"\"verdict\":", "\"summary\":", "\"concurrency\":", "\"region\":", "\"idle_causes\":",
                          "\"idle\":", "\"host_blocking\":", "\"stalls\":", "\"warmup\":", "\"findings\":",
                          "\"timing\":", "\"busy\":", "\"launches\":", "\"kernels\":", "\"tracing_cost\":"}) {
    const std::size_t at = json.find(key);
    EXPECT_NE(at, std::string::npos) << key;
  }
  EXPECT_NE(json.find("\"effective_parallelism\": 1.6000"), std::string::npos) << "the region's parallelism";
}

TEST(Report, WarmUpBeforeTheTimedLoopIsSaidToBeOutsideIt) {
  // A 50 ms context creation, then a timed loop [100, 110) ms: the headline says the loop paid none of it.
  TraceBuilder b;
  host_call(b, 1, 1, "cudaSetDevice", 0, 50 * ms);
  host_call(b, 1, 1, "cudaLaunchKernel", 100 * ms, 10 * kNsPerUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "k", 101 * ms, 5 * ms, 1);
  b.add_measurement(Measurement{"timed loop", MeasurementMethod::StopwatchSync, 10 * ms, 100 * ms, 110 * ms, 1, 1});
  const Report r = analyze(build(b));
  ASSERT_FALSE(r.warmup.headline.empty());
  bool said = false;
  for (const std::string& line : r.verdict)
    said = said || (line.rfind("Warm-up: ", 0) == 0 &&
                    line.find("; none of the first-use work fell inside the timed loop.") != std::string::npos);
  EXPECT_TRUE(said) << r.warmup.headline;
}

TEST(Report, TheRegionOfTwoWorkersIsBothTheirTimedLoops) {
  // Two processes time their own loops: [10, 40) ms and [12, 30) ms; worker 1's kernel ends at 45 ms.
  TraceBuilder b;
  host_call(b, 100, 100, "cudaLaunchKernel", 11 * ms, 10 * kNsPerUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "k", 12 * ms, 20 * ms, 1);
  host_call(b, 200, 200, "cudaLaunchKernel", 13 * ms, 10 * kNsPerUs, EventKind::Runtime, 2);
  kernel(b, 1, 7, "k", 14 * ms, 31 * ms, 2);
  b.add_measurement(Measurement{"worker 0 (cuda:0): timed loop", MeasurementMethod::StopwatchSync, 30 * ms, 10 * ms,
                                40 * ms, 100, 100});
  b.add_measurement(Measurement{"worker 1 (cuda:1): timed loop", MeasurementMethod::StopwatchSync, 18 * ms, 12 * ms,
                                30 * ms, 200, 200});
  const Trace t = build(b);
  const Region region = region_of_interest(t, analyze_timing_truth(t));
  EXPECT_TRUE(region.from_measurements);
  EXPECT_EQ(region.start_ns, 10 * ms);
  EXPECT_EQ(region.end_ns, 45 * ms);
  EXPECT_EQ(region.name, "the timed loops of 2 processes");
  // Without measurements the region is the whole trace, and the verdict does not claim a timed window.
  TraceBuilder plain;
  kernel(plain, 0, 7, "k", 5, 10);
  const Trace p = build(plain);
  const Region whole = region_of_interest(p, analyze_timing_truth(p));
  EXPECT_FALSE(whole.from_measurements);
  EXPECT_EQ(whole.name, "the whole trace");
  EXPECT_EQ(analyze(p).verdict[0].rfind("In the", 0), std::string::npos);
}

TEST(Report, DegenerateInputsGiveWordedReports) {
  std::vector<Trace> traces;
  {
    TraceBuilder b;  // empty
    traces.push_back(build(b));
  }
  {
    TraceBuilder b;  // one event
    host_call(b, 1, 1, "cudaSetDevice", 5, 3);
    traces.push_back(build(b));
  }
  {
    TraceBuilder b;  // zero-length events, an unknown category, flows without partners
    kernel(b, 0, 7, "k", 10, 0, 42);
    host_call(b, 1, 1, "cudaLaunchKernel", 0, 0, EventKind::Runtime, 43);
    b.add_other(b.lane(host_lane_key(1, 1)), make_event(b, "x", 3, 0, EventKind::Other), "mystery_category");
    b.add_measurement(Measurement{"m", MeasurementMethod::CudaEvents, 0, 4, 4, 1, 1});
    traces.push_back(build(b));
  }
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const Report r = analyze(traces[i]);
    for (Format f : {Format::Text, Format::Markdown, Format::Json}) {
      const std::string out = format_report(r, f);
      EXPECT_FALSE(out.empty());
      EXPECT_EQ(out.find("nan"), std::string::npos) << out;
      EXPECT_EQ(out.find("inf"), std::string::npos) << out;
      EXPECT_EQ(out.find("0.00x"), std::string::npos) << out;
      EXPECT_EQ(out.find("parallelism 0.00"), std::string::npos) << out;
      if (f == Format::Json) {
        EXPECT_EQ(bracket_balance(out), 0);
      }
    }
    if (i < 2) {
      EXPECT_EQ(r.verdict[0], "No GPU activity in this trace: no kernel, copy or memset ran on a GPU.");
      EXPECT_NE(format_report(r, Format::Text).find("No kernels in this trace."), std::string::npos);
    } else {
      EXPECT_EQ(r.verdict[0],
                "The GPU activity in this trace (1 item(s)) has zero duration: no GPU was busy for a measurable time.");
    }
  }
  EXPECT_EQ(analyze(traces[2]).summary.categories.back().category, "mystery_category");
}
// The report's parts run on three threads by default: the report must be the one computed in one thread, on real
// recordings of one GPU, two GPUs, threads and merged ranks.
TEST(Report, ThreadsGiveTheSameReportAsOneThread) {
  const std::pair<const char*, const char*> recordings[] = {{"h200x1", "sequential.json.gz"},
                                                            {"h200x2", "threads.json.gz"},
                                                            {"h200x1", "ddp.json.gz"},
                                                            {"cpu", "ddp-gloo4-straggler.json.gz"}};
  for (const auto& [folder, name] : recordings) {
    SCOPED_TRACE(std::string(folder) + "/" + name);
    const Trace trace = testing::bundled_recording(folder, name);
    const std::string threads = format_report(analyze(trace, Parallelism::Threads), Format::Json);
    const std::string serial = format_report(analyze(trace, Parallelism::Serial), Format::Json);
    EXPECT_EQ(threads, serial);
    EXPECT_EQ(format_report(analyze(trace), Format::Text),
              format_report(analyze(trace, Parallelism::Serial), Format::Text));
  }
}

}  // namespace gtv::analysis
