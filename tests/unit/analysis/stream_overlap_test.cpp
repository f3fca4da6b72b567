#include "gtv/analysis/stream_overlap.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <stdexcept>

#include "gtv/analysis/compare.h"
#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "recording_helpers.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {

// One GPU, three streams:
//   stream 13: kernels [0,100) and [150,250)       busy 200
//   stream 17: kernel  [50,200)                    busy 150
//   stream 21: copy    [180,300)                   busy 120
// Busy streams: [0,50) 1, [50,100) 2, [100,150) 1, [150,180) 2, [180,200) 3, [200,250) 2, [250,300) 1.
// GPU busy [0,300) = 300; 2+ streams 50 + 30 + 20 + 50 = 150; stream parallelism 470 / 300.
// Kernels [0,250), copies [180,300): a copy ran while a kernel ran for [180,250) = 70.
// Two host threads launch it: thread 1 in [0,10) and [20,30), thread 2 in [5,25) and [40,45); a synchronize on
// thread 1 launches nothing. Launching: [0,30) and [40,45) = 35; two threads at once [5,10) and [20,25) = 10.
Trace three_streams() {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 10, EventKind::Runtime, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 20, 10, EventKind::Runtime, 2);
  host_call(b, 1, 2, "cudaLaunchKernel", 5, 20, EventKind::Runtime, 3);
  host_call(b, 1, 2, "cudaMemcpyAsync", 40, 5, EventKind::Runtime, 4);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 35, 265);
  kernel(b, 0, 13, "a", 0, 100, 1);
  kernel(b, 0, 13, "a", 150, 100, 2);
  kernel(b, 0, 17, "b", 50, 150, 3);
  memcpy_event(b, 0, 21, 180, 120, {}, 4);
  return build(b);
}

}  // namespace

TEST(StreamOverlap, StreamsOfOneGpuByHand) {
  const Trace t = three_streams();
  const StreamOverlap s = analyze_stream_overlap(t);
  ASSERT_EQ(s.gpus.size(), 1u);
  const GpuStreamOverlap& g = s.gpus[0];
  EXPECT_EQ(g.device, 0);
  EXPECT_EQ(g.stream_count, 3u);
  EXPECT_EQ(g.busiest_stream, 13);
  EXPECT_EQ(g.busy_ns, 300);
  EXPECT_EQ(g.stream_busy_sum_ns, 470);
  EXPECT_EQ(g.multi_stream_ns, 150);
  EXPECT_EQ(g.max_busy_streams, 3);
  EXPECT_DOUBLE_EQ(g.stream_parallelism, 470.0 / 300.0);
  EXPECT_DOUBLE_EQ(g.multi_stream_share, 0.5);
  EXPECT_EQ(g.kernel_busy_ns, 250);
  EXPECT_EQ(g.copy_busy_ns, 120);
  EXPECT_EQ(g.copy_compute_overlap_ns, 70);
  EXPECT_EQ(g.step_count, 7u);
  const StreamActivity activity = collect_stream_activity(t);
  EXPECT_EQ(stream_level_steps(activity, 0, t.start_ns(), t.end_ns()),
            (std::vector<StreamLevelStep>{
                {0, 50, 1}, {50, 100, 2}, {100, 150, 1}, {150, 180, 2}, {180, 200, 3}, {200, 250, 2}, {250, 300, 1}}));
  EXPECT_EQ(stream_level_steps(activity, 0, 100, 200),
            (std::vector<StreamLevelStep>{{100, 150, 1}, {150, 180, 2}, {180, 200, 3}}));
  EXPECT_TRUE(stream_level_steps(activity, 1, t.start_ns(), t.end_ns()).empty());  // there is no GPU 1
  EXPECT_EQ(s.host.thread_count, 2u);
  EXPECT_EQ(s.host.process_count, 1u);
  EXPECT_EQ(s.host.launching_ns, 35);
  EXPECT_EQ(s.host.concurrent_ns, 10);
  EXPECT_EQ(s.host.max_threads, 2);
}

TEST(StreamOverlap, AWindowClipsEveryStream) {
  // [100,200): stream 13 [150,200) 50, stream 17 [100,200) 100, stream 21 [180,200) 20; busy 100; 2+ streams
  // [150,200) 50; parallelism 170 / 100. No launch falls inside.
  const StreamOverlap s = stream_overlap_within(collect_stream_activity(three_streams()), 100, 200);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].busy_ns, 100);
  EXPECT_EQ(s.gpus[0].stream_busy_sum_ns, 170);
  EXPECT_EQ(s.gpus[0].multi_stream_ns, 50);
  EXPECT_DOUBLE_EQ(s.gpus[0].stream_parallelism, 1.7);
  EXPECT_EQ(s.gpus[0].copy_compute_overlap_ns, 20);
  EXPECT_EQ(s.host.thread_count, 0u);
  EXPECT_EQ(s.host.concurrent_ns, 0);
  // A window without GPU work lists no GPU.
  EXPECT_TRUE(stream_overlap_within(collect_stream_activity(three_streams()), 400, 500).gpus.empty());
}

TEST(StreamOverlap, TheOneGpuVerdictSaysHowMuchItsStreamsOverlapped) {
  EXPECT_EQ(analyze_concurrency(three_streams()).verdict,
            "Only one GPU (GPU 0) did work: busy 300 ns of 300 ns (100%); 2 or more of its 3 streams ran at once for "
            "150 ns of it (50%): stream parallelism 1.57 (470 ns of per-stream busy time in 300 ns of GPU busy time).");
}

TEST(StreamOverlap, WithSeveralGpusTheVerdictSaysWhichGpusStreamsOverlapped) {
  // GPU 0: streams 7 [0,100) and 8 [50,100): 2 streams at once for 50 of 100 busy, parallelism 1.50. GPU 1: one
  // stream [100,200). The GPUs never overlap.
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 0, 8, "b", 50, 50);
  kernel(b, 1, 7, "c", 100, 100);
  EXPECT_EQ(analyze_concurrency(build(b)).verdict,
            "The 2 GPUs never ran at the same time: the work was serial (effective parallelism 1.00 of 2 possible); "
            "GPUs were busy for 200 ns. Inside GPU 0, 2 or more streams ran at once for 50 ns of its 100 ns busy "
            "(stream parallelism 1.50).");
  kernel(b, 1, 8, "d", 100, 100);  // GPU 1's two streams together all the time: parallelism 2.00
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 0, 8, "b", 50, 50);
  kernel(b, 1, 7, "c", 100, 100);
  const std::string verdict = analyze_concurrency(build(b)).verdict;
  EXPECT_NE(verdict.find(" Inside 2 of the GPUs, 2 or more streams ran at once; most on GPU 1 (stream parallelism "
                         "2.00)."),
            std::string::npos)
      << verdict;
}

TEST(StreamOverlap, StreamsSpanningTheWidestTraceDoNotOverflow) {
  // Two streams each busy from the earliest time a trace may hold to the latest: their sum exceeds int64 and
  // saturates instead of wrapping (UBSan would flag the wrap).
  TraceBuilder b;
  kernel(b, 0, 7, "a", kMinTraceTimeNs, kMaxTraceTimeNs - kMinTraceTimeNs);
  kernel(b, 0, 8, "b", kMinTraceTimeNs, kMaxTraceTimeNs - kMinTraceTimeNs);
  const StreamOverlap s = analyze_stream_overlap(build(b));
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].stream_busy_sum_ns, std::numeric_limits<TimeNs>::max());
  EXPECT_EQ(s.gpus[0].multi_stream_ns, kMaxTraceTimeNs - kMinTraceTimeNs);
}

TEST(StreamOverlap, StreamsTakingTurnsDidNotOverlap) {
  // The sequential loop: two streams, one after the other (touching ends are not overlap).
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 0, 8, "b", 100, 50);
  kernel(b, 0, 7, "a", 150, 100);
  const Trace t = build(b);
  const Concurrency c = analyze_concurrency(t);
  ASSERT_EQ(c.streams.gpus.size(), 1u);
  EXPECT_EQ(c.streams.gpus[0].multi_stream_ns, 0);
  EXPECT_DOUBLE_EQ(c.streams.gpus[0].stream_parallelism, 1.0);
  EXPECT_EQ(c.verdict,
            "Only one GPU (GPU 0) did work: busy 250 ns of 250 ns (100%); its 2 streams never ran at the same time "
            "(stream parallelism 1.00).");
  TraceBuilder one;
  kernel(one, 0, 7, "a", 0, 100);
  kernel(one, 0, 7, "a", 120, 100);
  EXPECT_EQ(analyze_concurrency(build(one)).verdict,
            "Only one GPU (GPU 0) did work: busy 200 ns of 220 ns (91%); all of it ran on one stream (stream 7), one "
            "piece at a time.");
}

TEST(StreamOverlap, ReportShowsStreamsPerGpuAndTheirJsonFields) {
  const Report r = analyze(three_streams());
  const std::string text = format_report(r, Format::Text);
  EXPECT_NE(text.find("Streams of each GPU in the whole trace (300 ns): stream parallelism is the sum of each "
                      "stream's busy time over the GPU's busy time (1.00 = one stream at a time)."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 host threads (in one process) launched GPU work in the whole trace (300 ns): 2 or more "
                      "were inside launching calls at once for 10 ns of the 35 ns any of them spent launching (29%)."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("nothing ran concurrently on another GPU"), std::string::npos) << text;
  const std::string json = format_report(r, Format::Json);
  for (const char* field :
       {"\"stream_parallelism\": 1.5667", "\"multi_stream_ns\": 150", "\"stream_busy_sum_ns\": 470",
        "\"copy_compute_overlap_ns\": 70", "\"max_busy_streams\": 3", "\"concurrent_ns\": 10", "\"launching_ns\": 35"})
    EXPECT_NE(json.find(field), std::string::npos) << field << "\n" << json;
}

}  // namespace gtv::analysis

namespace gtv::analysis {
namespace {

Trace recording(const std::string& name) { return testing::bundled_recording("h200x1", name); }

}  // namespace

TEST(StreamOverlap, TheStreamsLoopOnOneH200RanItsStreamsTogetherAndTheSequentialOneDidNot) {
  // 50 iterations each on 1x H200: streams ran 1,229 ms of per-stream busy time inside 577.2 ms of GPU busy time
  // over the trace (2.13); sequential ran everything on stream 7.
  const Report streams = analyze(recording("streams-50iters.json.gz"));
  ASSERT_EQ(streams.concurrency.streams.gpus.size(), 1u);
  EXPECT_NEAR(streams.concurrency.streams.gpus[0].stream_parallelism, 2.13, 0.005);
  ASSERT_EQ(streams.region_concurrency.streams.gpus.size(), 1u);
  const GpuStreamOverlap& loop = streams.region_concurrency.streams.gpus[0];
  EXPECT_EQ(loop.stream_count, 3u);
  EXPECT_GT(loop.multi_stream_share, 0.99);
  EXPECT_NE(streams.verdict[0].find("2 or more of its 3 streams ran at once"), std::string::npos) << streams.verdict[0];
  EXPECT_NE(streams.verdict[0].find("stream parallelism 2.15"), std::string::npos) << streams.verdict[0];

  const Report sequential = analyze(recording("sequential-50iters.json.gz"));
  ASSERT_EQ(sequential.region_concurrency.streams.gpus.size(), 1u);
  EXPECT_EQ(sequential.region_concurrency.streams.gpus[0].stream_count, 1u);
  EXPECT_EQ(sequential.region_concurrency.streams.gpus[0].multi_stream_ns, 0);
  EXPECT_NE(sequential.verdict[0].find("all of it ran on one stream (stream 7)"), std::string::npos)
      << sequential.verdict[0];

  // Their comparison: the same 50 iterations, 1.14x faster, and the streams' overlap side by side.
  const Comparison c =
      compare(recording("sequential-50iters.json.gz"), recording("streams-50iters.json.gz"), "sequential", "streams");
  EXPECT_FALSE(c.per_iteration);
  EXPECT_EQ(c.verdict.rfind("streams is 1.14x faster than sequential on the measured work", 0), 0u) << c.verdict;
  EXPECT_EQ(c.wall_line,
            "Whole trace (everything recorded): 1.01 s -> 872.7 ms wall (1.15x); one GPU in each (GPU 0), its stream "
            "parallelism 1.00 -> 2.13.");
  EXPECT_TRUE(c.warnings.empty()) << ::testing::PrintToString(c.warnings);
}

TEST(StreamOverlap, TenIterationsAgainstFiftyOfTheSameLoopAreComparedPerIteration) {
  const Comparison c =
      compare(recording("sequential.json.gz"), recording("sequential-50iters.json.gz"), "10 iterations", "50");
  EXPECT_TRUE(c.per_iteration);
  EXPECT_EQ(c.iterations_a, 10u);
  EXPECT_EQ(c.iterations_b, 50u);
  EXPECT_EQ(c.verdict.rfind("10 iterations and 50 take the same time per iteration on the measured work (timed "
                            "loop: 10 iterations in 128.4 ms -> 50 in 643.0 ms; per iteration 12.8 ms -> 12.9 ms: "
                            "1.00x;",
                            0),
            0u)
      << c.verdict;
}

}  // namespace gtv::analysis
