#include "gtv/analysis/host_blocking.h"

#include <gtest/gtest.h>

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
}  // namespace gtv::analysis
