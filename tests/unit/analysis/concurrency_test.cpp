#include "gtv/analysis/concurrency.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

TEST(Concurrency, StepFunctionOverlapAndParallelism) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 1, 7, "b", 50, 100);
  kernel(b, 2, 7, "c", 200, 50);
  const Trace t = build(b);
  const Concurrency c = analyze_concurrency(t);
  EXPECT_EQ(c.steps,
            (std::vector<ConcurrencyStep>{{0, 50, 1}, {50, 100, 2}, {100, 150, 1}, {150, 200, 0}, {200, 250, 1}}));
  EXPECT_EQ(c.gpu_count, 3u);
  EXPECT_EQ(c.any_busy_ns, 200);
  EXPECT_EQ(c.overlap_ns, 50);
  EXPECT_EQ(c.sum_busy_ns, 250);
  EXPECT_EQ(c.ideal_ns, 100);
  EXPECT_EQ(c.busiest_device, 0);
  EXPECT_DOUBLE_EQ(c.effective_parallelism, 1.25);
  EXPECT_DOUBLE_EQ(c.overlap_share, 0.25);
  EXPECT_EQ(c.verdict,
            "2 or more of 3 GPUs overlapped for 50 ns of 200 ns (25%); effective parallelism 1.25 of 3 possible; "
            "ideal (busiest GPU, GPU 0, alone) 100 ns.");
}

TEST(Concurrency, TwoGpusInMilliseconds) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 40 * kNsPerMs);
  kernel(b, 1, 7, "b", 10 * kNsPerMs, 40 * kNsPerMs);  // overlap [10,40) = 30 ms, union 50 ms
  const Trace t = build(b);
  const Concurrency c = analyze_concurrency(t);
  EXPECT_EQ(c.verdict,
            "2 GPUs overlapped for 30.0 ms of 50.0 ms (60%); effective parallelism 1.60 of 2 possible; ideal "
            "(busiest GPU, GPU 0, alone) 40.0 ms.");
}

TEST(Concurrency, SerialGpusAndStreamsOfOneGpuDoNotCountAsOverlap) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 0, 8, "a2", 20, 100);  // same GPU, other stream: one busy GPU
  kernel(b, 1, 7, "b", 120, 30);   // touches GPU 0's end: no overlap
  const Trace t = build(b);
  const Concurrency c = analyze_concurrency(t);
  EXPECT_EQ(c.steps, (std::vector<ConcurrencyStep>{{0, 150, 1}}));
  EXPECT_EQ(c.overlap_ns, 0);
  EXPECT_DOUBLE_EQ(c.effective_parallelism, 1.0);
  EXPECT_EQ(c.verdict,
            "The 2 GPUs never ran at the same time: the work was serial (effective parallelism 1.00 of 2 possible); "
            "GPUs were busy for 150 ns. Inside GPU 0, 2 or more streams ran at once for 80 ns of its 120 ns busy "
            "(stream parallelism 1.67).");
}

TEST(Concurrency, DegenerateInputs) {
  TraceBuilder empty;
  const Trace none = build(empty);
  const Concurrency c0 = analyze_concurrency(none);
  EXPECT_TRUE(c0.steps.empty());
  EXPECT_EQ(c0.effective_parallelism, 0.0);
  EXPECT_EQ(c0.verdict, "No GPU activity in this trace: no kernel, copy or memset ran on a GPU.");

  TraceBuilder zero;
  kernel(zero, 0, 7, "z", 10, 0);
  const Trace z = build(zero);
  EXPECT_EQ(analyze_concurrency(z).gpu_count, 0u);

  TraceBuilder one;
  kernel(one, 3, 7, "k", 0, 30);
  host_call(one, 1, 1, "cudaDeviceSynchronize", 0, 60, EventKind::Sync);
  const Trace o = build(one);
  EXPECT_EQ(analyze_concurrency(o).verdict,
            "Only one GPU (GPU 3) did work: busy 30 ns of 60 ns (50%); all of it ran on one stream (stream 7), one "
            "piece at a time.");
  // Without stream data (busy times alone) the verdict says nothing about streams.
  EXPECT_EQ(analyze_concurrency(analyze_busy(o)).verdict, "Only one GPU (GPU 3) did work: busy 30 ns of 60 ns (50%).");
}

TEST(Concurrency, WithinAWindowClipsTheBusyTime) {
  // GPU 0 busy [0,100), GPU 1 busy [50,200); the window [80,180) sees GPU 0 for 20 ns and GPU 1 for 100 ns,
  // overlapping 20 ns: parallelism (20 + 100) / 100 = 1.20 where the whole trace says (100 + 150) / 200 = 1.25.
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100);
  kernel(b, 1, 7, "b", 50, 150);
  const Trace t = build(b);
  const BusyAnalysis busy = analyze_busy(t);
  const Concurrency whole = analyze_concurrency(busy);
  EXPECT_DOUBLE_EQ(whole.effective_parallelism, 1.25);
  const Concurrency c = analyze_concurrency_within(busy, 80, 180);
  EXPECT_EQ(c.wall_ns, 100);
  EXPECT_EQ(c.any_busy_ns, 100);
  EXPECT_EQ(c.overlap_ns, 20);
  EXPECT_EQ(c.sum_busy_ns, 120);
  EXPECT_DOUBLE_EQ(c.effective_parallelism, 1.2);
  // A window where only GPU 1 works says one GPU did work there.
  EXPECT_EQ(analyze_concurrency_within(busy, 150, 200).gpu_count, 1u);
}

TEST(Concurrency, OneRankOfADistributedRunSaysWhereTheOtherGpusAre) {
  TraceBuilder b;
  kernel(b, 1, 7, "k", 0, 30);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 0, 60, EventKind::Sync);
  b.metadata().distributed = DistributedInfo{1, 2, "nccl"};
  const Trace t = build(b);
  EXPECT_EQ(analyze_concurrency(t).verdict,
            "This trace is rank 1 of 2 (nccl): its one GPU (GPU 1) was busy 30 ns of 60 ns (50%); all of it ran on one "
            "stream (stream 7), one piece at a time; the other ranks' GPUs are in their own files: open them together "
            "(gtv-cli merge) to measure concurrency across ranks.");
}

TEST(Concurrency, TheOnlyRankOfARunHasNoOtherFilesToPointTo) {
  TraceBuilder b;
  kernel(b, 0, 7, "k", 0, 30);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 0, 60, EventKind::Sync);
  b.metadata().distributed = DistributedInfo{0, 1, "nccl"};
  const Trace t = build(b);
  EXPECT_EQ(analyze_concurrency(t).verdict,
            "This trace is rank 0 of 1 (nccl), the only rank of its run: its one GPU (GPU 0) was busy 30 ns of 60 ns "
            "(50%); all of it ran on one stream (stream 7), one piece at a time; there was no other GPU to run beside "
            "it.");
}
}  // namespace gtv::analysis
