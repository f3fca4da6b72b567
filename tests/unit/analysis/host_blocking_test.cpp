#include "gtv/analysis/host_blocking.h"

#include <gtest/gtest.h>

#include "gtv/analysis/report.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs ms = kNsPerMs;

Trace blocking_trace() {
  TraceBuilder b;
  b.set_lane_name(b.lane(host_lane_key(1, 5)), "main");
  host_call(b, 1, 5, "cudaLaunchKernel", 0, 10 * ms);
  host_call(b, 1, 5, "cudaStreamSynchronize", 10 * ms, 50 * ms);
  host_call(b, 1, 5, "Stream Sync", 12 * ms, 46 * ms, EventKind::Sync);  // nested: counted once
  host_call(b, 1, 5, "cudaMemcpyAsync", 100 * ms, 31 * ms, EventKind::Runtime, 3);
  memcpy_event(b, 1, 7, 125 * ms, 5 * ms, {1024, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pageable, -1},
               3);
  host_call(b, 1, 5, "cudaMemcpyAsync", 200 * ms, 5 * ms, EventKind::Runtime, 4);
  memcpy_event(b, 1, 7, 201 * ms, 1 * ms, {1024, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pinned, -1},
               4);
  host_call(b, 1, 5, "cudaMemcpyAsync", 300 * ms, 10 * ms, EventKind::Runtime, 99);  // no partner: unknown memory
  host_call(b, 1, 5, "cudaMemcpy", 400 * ms, 20 * ms);
  host_call(b, 1, 5, "cuMemcpyDtoH_v2", 405 * ms, 10 * ms, EventKind::Driver);  // nested
  host_call(b, 1, 6, "cudaDeviceSynchronize", 0, 1000 * ms);
  host_call(b, 1, 6, "cudaEventSynchronize", 500 * ms, 100 * ms);  // nested
  return build(b);
}
}  // namespace

TEST(HostBlocking, PerThreadTimeAndCalls) {
  const Trace t = blocking_trace();
  const HostBlocking h = analyze_host_blocking(t);
  ASSERT_EQ(h.threads.size(), 2u);
  EXPECT_EQ(h.threads[0].tid, 5);
  EXPECT_EQ(h.threads[0].call_count, 3u);
  EXPECT_EQ(h.threads[0].blocked_ns, (50 + 31 + 20) * ms);
  EXPECT_EQ(h.threads[0].span_ns, 420 * ms);
  EXPECT_DOUBLE_EQ(h.threads[0].blocked_share, 101.0 / 420.0);
  EXPECT_EQ(h.threads[1].blocked_ns, 1000 * ms);
  EXPECT_EQ(h.total_blocked_ns, 1101 * ms);

  ASSERT_EQ(h.calls.size(), 4u);
  EXPECT_EQ(h.calls[0].name, "cudaDeviceSynchronize");
  EXPECT_EQ(h.calls[0].kind, BlockingKind::DeviceSync);
  EXPECT_EQ(h.calls[1].name, "cudaStreamSynchronize");
  EXPECT_EQ(h.calls[1].kind, BlockingKind::StreamSync);
  EXPECT_EQ(h.calls[2].name, "cudaMemcpyAsync");
  EXPECT_EQ(h.calls[2].kind, BlockingKind::PageableAsyncCopy);
  EXPECT_EQ(h.calls[2].device, 1);
  EXPECT_TRUE(h.calls[2].to_pageable);
  EXPECT_EQ(h.calls[2].duration_ns, 31 * ms);
  EXPECT_EQ(h.calls[3].kind, BlockingKind::SyncCopy);
}

TEST(HostBlocking, FindingsInPlainWordsLargestFirst) {
  const Trace t = blocking_trace();
  const HostBlocking h = analyze_host_blocking(t);
  const std::vector<std::string> expected{
      "cudaDeviceSynchronize blocked the host for 1.00 s (1 call(s), thread 6).",
      "Thread 6 waited for the GPU 1.00 s of its 1.00 s (100%).",
      "Thread 5 (main) waited for the GPU 101.0 ms of its 420.0 ms (24%).",
      "cudaStreamSynchronize blocked the host for 50.0 ms (1 call(s), thread 5).",
      "cudaMemcpyAsync to pageable memory blocked the host for 31.0 ms (1 call(s), thread 5).",
      "Synchronous cudaMemcpy blocked the host for 20.0 ms (1 call(s), thread 5).",
  };
  EXPECT_EQ(h.findings, expected);
  EXPECT_EQ(h.headline, "cudaDeviceSynchronize blocked the host for 1.00 s (1 call(s), thread 6).");
}

TEST(HostBlocking, NoBlocking) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 10);
  const Trace t = build(b);
  const HostBlocking h = analyze_host_blocking(t);
  EXPECT_TRUE(h.threads.empty());
  EXPECT_EQ(h.total_blocked_ns, 0);
  EXPECT_EQ(h.headline, "");
  EXPECT_EQ(h.findings,
            std::vector<std::string>{"No host thread waited for the GPU: no synchronizing calls or blocking copies."});
}
namespace {
constexpr TimeNs us = kNsPerUs;

// Three launches that waited for room in the command queue: one wait, two waits inside one launch (one call),
// and a wait CUPTI recorded outside any launch call (Kineto's spelling).
Trace queue_full_trace() {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 3 * ms, EventKind::Runtime, 5);
  host_call(b, 1, 1, "command buffer full", 100 * us, 2500 * us, EventKind::Overhead);
  kernel(b, 1, 7, "gemm", 4 * ms, 1 * ms, 5);
  host_call(b, 1, 1, "cudaLaunchKernel", 10 * ms, 2 * ms);
  host_call(b, 1, 1, "command buffer full", 10100 * us, 500 * us, EventKind::Overhead);
  host_call(b, 1, 1, "command buffer full", 10800 * us, 700 * us, EventKind::Overhead);
  host_call(b, 1, 1, "cudaLaunchKernel", 15 * ms, 5 * us);  // a launch that found room: no stall
  host_call(b, 1, 1, "Command Buffer Full", 20 * ms, 1 * ms, EventKind::Overhead);
  host_call(b, 1, 1, "cudaStreamSynchronize", 30 * ms, 10 * ms);
  return build(b);
}

// A launch whose kernel's module is loaded lazily while other work runs on the GPU: the driver lets that work
// finish (0 to 50 ms) before it loads the module, so the launch returns after 57 ms.
Trace lazy_drain_trace(bool gpu_busy, bool lazy_record, TimeNs launch_ns = 57 * ms) {
  TraceBuilder b;
  if (gpu_busy) {
    host_call(b, 1, 1, "cudaLaunchKernel", 0, 5 * us, EventKind::Runtime, 1);
    kernel(b, 0, 7, "gemm", 10 * us, 50 * ms, 1);
  }
  host_call(b, 1, 1, "cudaLaunchKernel", 1 * ms, launch_ns, EventKind::Runtime, 2);
  if (lazy_record)
    host_call(b, 1, 1, "lazy function loading", 1 * ms + launch_ns - 100 * us, 90 * us, EventKind::Overhead);
  kernel(b, 0, 7, "relu", 1 * ms + launch_ns + 10 * us, 1 * ms, 2);
  return build(b);
}
}  // namespace

TEST(HostBlocking, LaunchQueueFullCountsTheWaitsOnceEachLaunch) {
  const Trace t = queue_full_trace();
  const HostBlocking h = analyze_host_blocking(t);
  ASSERT_EQ(h.stalls.size(), 2u);
  EXPECT_EQ(h.stalls[0].kind, BlockingKind::StreamSync);
  EXPECT_EQ(h.stalls[0].total_ns, 10 * ms);
  EXPECT_EQ(h.stalls[1].kind, BlockingKind::LaunchQueueFull);
  EXPECT_EQ(h.stalls[1].call_count, 3u);                            // launches, not records
  EXPECT_EQ(h.stalls[1].total_ns, (2500 + 500 + 700 + 1000) * us);  // the waits, not the launches
  ASSERT_EQ(h.threads.size(), 1u);
  EXPECT_EQ(h.threads[0].call_count, 4u);
  EXPECT_EQ(h.threads[0].blocked_ns, 14700 * us);
  ASSERT_EQ(h.calls.size(), 5u);
  EXPECT_EQ(h.calls[0].name, "cudaLaunchKernel");
  EXPECT_EQ(h.calls[0].kind, BlockingKind::LaunchQueueFull);
  EXPECT_EQ(h.calls[0].duration_ns, 2500 * us);
  EXPECT_EQ(h.calls[0].device, 1);                    // the launch's GPU, through its kernel
  EXPECT_EQ(h.calls[3].name, "Command Buffer Full");  // no launch around it
  EXPECT_EQ(describe_blocking(h.calls[0]), "launch queue full");
  EXPECT_EQ(h.headline, "cudaStreamSynchronize blocked the host for 10.0 ms (1 call(s), thread 1).");
  EXPECT_EQ(h.findings[2],
            "Launch queue full: launches waited 4.70 ms for room in the GPU's command queue (3 call(s), thread 1).");
}

TEST(HostBlocking, QueueFullInsideAStallCountsOnce) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaMemcpy", 0, 10 * ms);
  host_call(b, 1, 1, "command buffer full", 1 * ms, 2 * ms, EventKind::Overhead);
  const Trace t = build(b);
  const HostBlocking h = analyze_host_blocking(t);
  ASSERT_EQ(h.stalls.size(), 1u);
  EXPECT_EQ(h.stalls[0].kind, BlockingKind::SyncCopy);
  EXPECT_EQ(h.total_blocked_ns, 10 * ms);
}

TEST(HostBlocking, LazyLoadingThatDrainsTheGpu) {
  const Trace t = lazy_drain_trace(true, true);
  const HostBlocking h = analyze_host_blocking(t);
  ASSERT_EQ(h.calls.size(), 1u);
  EXPECT_EQ(h.calls[0].kind, BlockingKind::LazyLoadingDrain);
  EXPECT_EQ(h.calls[0].name, "cudaLaunchKernel");
  EXPECT_EQ(h.calls[0].duration_ns, 57 * ms);
  EXPECT_EQ(h.calls[0].device, 0);
  EXPECT_EQ(describe_blocking(h.calls[0]), "lazy module loading drained the GPU");
  ASSERT_EQ(h.stalls.size(), 1u);
  EXPECT_EQ(h.stalls[0].total_ns, 57 * ms);
  EXPECT_EQ(h.headline,
            "Lazy module loading drained the GPU: launches blocked the host for 57.0 ms while the driver let the "
            "queued GPU work finish and loaded their kernels (1 call(s), thread 1).");
}

TEST(HostBlocking, LazyLoadingWithoutARecordIsAFirstRun) {
  const HostBlocking h = analyze_host_blocking(lazy_drain_trace(true, false));
  ASSERT_EQ(h.calls.size(), 1u);
  EXPECT_EQ(h.calls[0].kind, BlockingKind::LazyLoadingDrain);
}

TEST(HostBlocking, LongLaunchesThatDrainedNothingAreNoStall) {
  // Idle GPU: the launch spent its time loading, not waiting for the GPU.
  EXPECT_TRUE(analyze_host_blocking(lazy_drain_trace(false, true)).calls.empty());
  // A short launch that loads lazily is ordinary warm-up.
  EXPECT_TRUE(analyze_host_blocking(lazy_drain_trace(true, true, 500 * us)).calls.empty());
  // A long launch of a kernel that ran before, with no loading record: not lazy loading.
  TraceBuilder b;
  kernel(b, 0, 7, "relu", 0, 1 * ms);
  host_call(b, 1, 1, "cudaLaunchKernel", 2 * ms, 5 * us, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm", 3 * ms, 50 * ms, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 4 * ms, 57 * ms, EventKind::Runtime, 2);
  kernel(b, 0, 7, "relu", 62 * ms, 1 * ms, 2);
  EXPECT_TRUE(analyze_host_blocking(build(b)).calls.empty());
}

TEST(HostBlocking, AFewLateLaunchesOfAThreadThatRunsAheadAreNotSynchronous) {
  // One launch of four returned after its 700 us kernel ended; the other three returned long before theirs ended:
  // the thread ran ahead of the GPU, so the late one was a slow host there (descheduled, or the profiler's own
  // work), not a launch that waits. A host-bound training loop under torch.profiler shows this.
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 720 * us, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm", 10 * us, 700 * us, 1);
  for (int k = 0; k < 3; ++k) {
    const TimeNs at = (1 + k) * ms;
    host_call(b, 1, 1, "cudaLaunchKernel", at, 5 * us, EventKind::Runtime, 2 + k);
    kernel(b, 0, 7, "gemm", at + 8 * us, 700 * us, 2 + k);
  }
  const HostBlocking h = analyze_host_blocking(build(b));
  EXPECT_TRUE(h.calls.empty());
  EXPECT_TRUE(h.headline.empty()) << h.headline;
}

TEST(HostBlocking, LaunchesThatReturnAfterTheirKernelAreSynchronous) {
  TraceBuilder b;
  // Launch 1 returns after its 700 us kernel ended: the host waited for it (CUDA_LAUNCH_BLOCKING=1).
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 720 * us, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm", 10 * us, 700 * us, 1);
  // Launch 2 returns before its kernel ends: asynchronous, no stall.
  host_call(b, 1, 1, "cudaLaunchKernel", 1 * ms, 5 * us, EventKind::Runtime, 2);
  kernel(b, 0, 7, "gemm", 1 * ms + 8 * us, 700 * us, 2);
  // Launch 3: a 2 us kernel finished while the 6 us call returned, as happens with asynchronous launches.
  host_call(b, 1, 1, "cudaLaunchKernel", 3 * ms, 6 * us, EventKind::Runtime, 3);
  kernel(b, 0, 7, "relu", 3 * ms + 2 * us, 2 * us, 3);
  const HostBlocking h = analyze_host_blocking(build(b));
  ASSERT_EQ(h.calls.size(), 1u);
  EXPECT_EQ(h.calls[0].kind, BlockingKind::SynchronousLaunch);
  EXPECT_EQ(h.calls[0].duration_ns, 720 * us);
  EXPECT_EQ(h.calls[0].device, 0);
  EXPECT_EQ(describe_blocking(h.calls[0]), "synchronous launches waiting for their kernels");
  EXPECT_EQ(h.headline,
            "Synchronous launches: launch calls returned only after their kernels finished, blocking the host for "
            "at least 720.0 us (1 call(s), thread 1; only launches of kernels of 20.0 us or longer are counted, as an "
            "asynchronous launch may also return after a shorter kernel); CUDA_LAUNCH_BLOCKING=1 does this.");
  // The stalls table says the total is a lower bound, as the JSON does.
  TraceBuilder again;
  host_call(again, 1, 1, "cudaLaunchKernel", 0, 720 * us, EventKind::Runtime, 1);
  kernel(again, 0, 7, "gemm", 10 * us, 700 * us, 1);
  const Report r = analyze(build(again));
  EXPECT_NE(format_report(r, Format::Text).find("their total is a lower bound"), std::string::npos);
  EXPECT_NE(format_report(r, Format::Json).find("\"lower_bound\": true"), std::string::npos);
}

TEST(HostBlocking, SyncRecordsInsideCallsThatDoNotBlockAreNotWaits) {
  // CUPTI records an "Event Sync" inside cudaEventQuery too, which checks the event and returns. Only the record
  // inside cudaEventSynchronize is a wait (and counts once, as that call); a record inside no call at all is kept.
  TraceBuilder b;
  host_call(b, 1, 1, "cudaEventSynchronize", 0, 100 * us);
  host_call(b, 1, 1, "Event Sync", 10 * us, 80 * us, EventKind::Sync);
  host_call(b, 1, 1, "cudaEventQuery", 200 * us, 10 * us);
  host_call(b, 1, 1, "Event Sync", 202 * us, 3 * us, EventKind::Sync);
  host_call(b, 1, 1, "cudaEventQuery", 220 * us, 10 * us);
  host_call(b, 1, 1, "cuEventQuery", 221 * us, 8 * us, EventKind::Driver);
  host_call(b, 1, 1, "Event Sync", 222 * us, 2 * us, EventKind::Sync);
  host_call(b, 1, 1, "Stream Sync", 300 * us, 50 * us, EventKind::Sync);
  const HostBlocking h = analyze_host_blocking(build(b));
  ASSERT_EQ(h.calls.size(), 2u);
  EXPECT_EQ(h.calls[0].name, "cudaEventSynchronize");
  EXPECT_EQ(h.calls[1].name, "Stream Sync");
  ASSERT_EQ(h.threads.size(), 1u);
  EXPECT_EQ(h.threads[0].call_count, 2u);
  EXPECT_EQ(h.threads[0].blocked_ns, 150 * us);
  EXPECT_EQ(h.findings, (std::vector<std::string>{
                            "Thread 1 waited for the GPU 150.0 us of its 350.0 us (43%).",
                            "cudaEventSynchronize blocked the host for 100.0 us (1 call(s), thread 1).",
                            "Stream Sync blocked the host for 50.0 us (1 call(s), thread 1).",
                        }));
}

TEST(HostBlocking, FreeSynchronizesImplicitly) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaFree", 0, 3 * ms);
  host_call(b, 1, 1, "cudaFreeAsync", 5 * ms, 3 * ms);  // stream-ordered: no device-wide wait
  host_call(b, 1, 1, "cudaFreeHost", 10 * ms, 1 * ms);
  host_call(b, 1, 1, "cuMemFree_v2", 20 * ms, 2 * ms, EventKind::Driver);
  host_call(b, 1, 1, "cudaMalloc", 30 * ms, 2 * ms);
  const Trace t = build(b);
  const HostBlocking h = analyze_host_blocking(t);
  ASSERT_EQ(h.calls.size(), 3u);
  for (const BlockingCall& c : h.calls) EXPECT_EQ(c.kind, BlockingKind::ImplicitSync) << c.name;
  ASSERT_EQ(h.stalls.size(), 1u);
  EXPECT_EQ(h.stalls[0].call_count, 3u);
  EXPECT_EQ(h.stalls[0].total_ns, 6 * ms);
  EXPECT_EQ(h.headline,
            "cudaFree blocked the host for 3.00 ms: it synchronizes the device implicitly (1 call(s), "
            "thread 1).");
  EXPECT_EQ(describe_blocking(h.calls[0]), "cudaFree (implicit synchronization)");
}

TEST(HostBlocking, DescribedAsNounPhrases) {
  BlockingCall c;
  c.name = "cudaMemcpy";
  c.kind = BlockingKind::SyncCopy;
  EXPECT_EQ(describe_blocking(c), "synchronous cudaMemcpy");
  c.name = "cudaMemcpyAsync";
  c.kind = BlockingKind::PageableAsyncCopy;
  c.to_pageable = true;
  EXPECT_EQ(describe_blocking(c), "cudaMemcpyAsync to pageable memory");
  c.name = "cudaDeviceSynchronize";
  c.kind = BlockingKind::DeviceSync;
  EXPECT_EQ(describe_blocking(c), "cudaDeviceSynchronize");
  EXPECT_EQ(blocking_kind_key(BlockingKind::LaunchQueueFull), "launch_queue_full");
}

TEST(HostBlocking, StallsInTheReport) {
  const Report r = analyze(queue_full_trace());
  const std::string json = format_report(r, Format::Json);
  EXPECT_NE(json.find("\"stalls\""), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"launch_queue_full\",\n        \"count\": 3,\n        \"total_ns\": 4700000"),
            std::string::npos)
      << json;
  const std::string text = format_report(r, Format::Text);
  EXPECT_NE(text.find("launch queue full"), std::string::npos) << text;
}

}  // namespace gtv::analysis
