// Predictions on small traces, against timelines worked out by hand.
#include "gtv/whatif/predict.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "gtv/model/kineto_names.h"
#include "whatif_helpers.h"

namespace gtv::whatif {
namespace {
using namespace causal::testing;
using namespace whatif::testing;

Expected<Prediction> predict_one(const Trace& t, const char* change) {
  const std::vector<Change> changes = {*parse_change(change)};
  return predict(t, changes);
}

double predicted_us(const Prediction& p) { return double(p.predicted_ns) / double(kUs); }

// Two models' kernels of 100 us on one stream, the second queued behind the first; a synchronize waits for both.
Trace two_models_on_one_stream(int blocks) {
  TraceBuilder b;
  add_two_models_on_one_stream(b, blocks);
  measure(b, 0, 212);
  return build(b);
}

// Each kernel fills half the GPU: on streams of their own they run together without slowing: the second starts
// when its launch returns (30 us), ends at 130 us, and the synchronize returns 2 us later.
TEST(WhatifStreams, KernelsThatFitTogetherOverlapFully) {
  const Trace t = two_models_on_one_stream(400);
  Expected<Prediction> p = predict_one(t, "streams");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 212 * kUs);
  EXPECT_EQ(p->replayed_ns, 212 * kUs);
  EXPECT_NEAR(predicted_us(*p), 132.0, 0.5);
  // The band's upper end: kernels that gain nothing by running together take the recorded 212 us.
  EXPECT_GE(p->high_ns, 212 * kUs);
  EXPECT_LE(p->low_ns, p->predicted_ns);
  ASSERT_FALSE(p->path.empty());
  EXPECT_EQ(p->path[0].what, "GPU 0 kernel");
}

// Each kernel fills the whole GPU: the first runs alone [10, 30), then both at half speed until the first ends at
// 190 us; the second ends alone at 210 us, the synchronize 2 us later: nothing gained (the fluid sharing model,
// reached by iteration: within 1%).
TEST(WhatifStreams, KernelsThatFillTheGpuGainNothing) {
  const Trace t = two_models_on_one_stream(800);
  Expected<Prediction> p = predict_one(t, "streams");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 212.0, 212.0 * 0.01);
  EXPECT_LE(p->low_ns, 212 * kUs);
  EXPECT_GE(p->high_ns, 212 * kUs);
}

// Three models' kernels of 100 us, each asking for half the GPU, queued on stream 7 one after another ([10, 110),
// [110, 210), [210, 310)); the synchronize returns at 312 us. On streams of their own they start when their launches
// return (10, 30, 50 us): [10, 50) asks for at most the whole GPU, so the first two progress 40 and 20 us; from 50 us
// three ask for 1.5 GPUs and each runs at 2/3: the first needs 60 us more and ends at 140; then two ask for one GPU,
// the second (20 us left) ends at 160 and the third (40 left) runs alone from then and ends at 180. The synchronize
// returns at 182 us.
TEST(WhatifStreams, ThreeStreamsShareTheGpuInProportion) {
  TraceBuilder b;
  gpu_with_100_sms(b);
  for (int model = 0; model < 3; ++model) {
    const TimeNs at_us = 20 * model;
    forward(b, model, at_us, at_us + 20);
    launch_gemm(b, static_cast<std::uint64_t>(model) + 1, at_us + 5, 10 + 100 * model, 100, 400);
  }
  host_call(b, 1, 1, "cudaDeviceSynchronize", 60 * kUs, 252 * kUs);
  measure(b, 0, 312);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "streams");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->replayed_ns, 312 * kUs);
  EXPECT_NEAR(predicted_us(*p), 182.0, 182.0 * 0.01);
  // The lower end: the 150 us of GPU the three need back to back; the upper: kernels that gain nothing together.
  EXPECT_LE(p->low_ns, 150 * kUs);
  EXPECT_GE(p->high_ns, 312 * kUs);
}

TEST(WhatifStreams, OneModelPerStreamAlreadyIsNothingToChange) {
  TraceBuilder b;
  forward(b, 0, 0, 20);
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  measure(b, 0, 110);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "streams");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("nothing to change"), std::string::npos);
}

// A launch-bound loop of three models' forwards on one stream, as torch.profiler records it (or not): forwards of
// models 0, 1, 2, 0 at [0, 20), [20, 40), [40, 60), [60, 80), each a launch 5 us after its start and a 1 us kernel
// 1 us after the launch returns; a synchronize [80, 82) ends the timed loop.
Trace launch_bound_forwards(bool torch_profiler) {
  TraceBuilder b;
  if (torch_profiler) b.metadata().source_tool = std::string(kineto::kSourceTool);
  for (int i = 0; i < 4; ++i) {
    forward(b, i % 3, 20 * i, 20 * i + 20);
    launch(b, std::uint64_t(i) + 1, 20 * i + 5, 5, 0, 7, 20 * i + 11, 1);
  }
  host_call(b, 1, 1, "cudaDeviceSynchronize", 80 * kUs, 2 * kUs);
  measure(b, 0, 82);
  return build(b);
}

// In a Python program each owner's stream is entered with `with torch.cuda.stream(...)`, 26 us of the host's time
// before each range that follows another owner's on its thread (the first in the trace has nothing before it to
// follow): three of them; the host bounds the loop, so the synchronize returns 78 us later, at 160 us. The band's
// upper end takes 52 us a switch (238 us), 1% further; its lower end is the sharing model's, the GPU's 4 us of
// kernels back to back (13 us a switch would give 121 us).
TEST(WhatifStreams, EnteringEachOwnersStreamCostsAPythonProgramsHost) {
  Expected<Prediction> p = predict_one(launch_bound_forwards(true), "streams");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 82 * kUs);
  EXPECT_NEAR(predicted_us(*p), 160.0, 0.5);
  EXPECT_NEAR(double(p->low_ns) / double(kUs), 4.0 * 0.99, 0.5);
  EXPECT_NEAR(double(p->high_ns) / double(kUs), 238.0 * 1.01, 0.5);
  ASSERT_EQ(p->applied.size(), 2u);
  EXPECT_EQ(p->applied[1], "3 ranges enter their owner's stream");
}

// gtv's own experiments switch streams with LibTorch's CUDAStreamGuard, which costs next to nothing: the loop stays
// as long as the host made it.
TEST(WhatifStreams, AStreamGuardInCppCostsNothing) {
  Expected<Prediction> p = predict_one(launch_bound_forwards(false), "streams");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 82.0, 0.5);
  EXPECT_EQ(p->applied.size(), 1u);
}

MemcpyDetail to_pageable() {
  MemcpyDetail d;
  d.copy_kind = CopyKind::DeviceToHost;
  d.src_kind = MemoryKind::Device;
  d.dst_kind = MemoryKind::Pageable;
  d.bytes = 40000;
  return d;
}

// A kernel [10, 110); a pageable copy call [15, 122) waits for it and for its copy [110, 120); the next launch
// [125, 130) queues a kernel [130, 230); a synchronize [135, 232). Pinned: the copy call takes the median launch
// (5 us) and returns at 20; the next launch runs [23, 28); its kernel, queued behind the copy, starts 1 us after it
// (the queued gap of a recording that shows none): [121, 221); the synchronize starts 5 us after the launch (33)
// and returns 2 us after the kernel: 223 us.
// A kernel [10, 110); a copy call [15, 15 + call_us) whose copy runs [110, 120); with stream_sync_us, a
// cudaStreamSynchronize [31, 31 + stream_sync_us); the next launch [125, 130) queues a kernel [130, 230); a
// synchronize [135, 232) ends the timed loop.
Trace copy_after_a_kernel(const MemcpyDetail& copy, TimeNs call_us, TimeNs stream_sync_us) {
  TraceBuilder b;
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 15 * kUs, call_us * kUs, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * kUs, 10 * kUs, copy, 2);
  if (stream_sync_us > 0) host_call(b, 1, 1, "cudaStreamSynchronize", 31 * kUs, stream_sync_us * kUs);
  launch(b, 3, 125, 5, 0, 7, 130, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 135 * kUs, 97 * kUs);
  measure(b, 0, 232);
  return build(b);
}

TEST(WhatifPinned, TheCopyNoLongerHoldsTheHost) {
  const Trace t = copy_after_a_kernel(to_pageable(), 107, 0);
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 232 * kUs);
  EXPECT_NEAR(predicted_us(*p), 223.0, 0.5);
  // Half and twice the copy's 10 us: the kernel follows it at 116 or 131 us, the window is 218 or 233 us, each 1%
  // further for the spread between recordings.
  EXPECT_NEAR(double(p->low_ns) / double(kUs), 218.0 * 0.99, 0.5);
  EXPECT_NEAR(double(p->high_ns) / double(kUs), 233.0 * 1.01, 0.5);
}

MemcpyDetail host_to_device(MemoryKind src, std::int64_t bytes) {
  MemcpyDetail d;
  d.copy_kind = CopyKind::HostToDevice;
  d.src_kind = src;
  d.dst_kind = MemoryKind::Device;
  d.bytes = bytes;
  return d;
}

// PyTorch's x.to("cuda") of pageable memory: the copy call stages the data and returns [15, 30) before its copy,
// queued behind a kernel [10, 110), runs [110, 120); the cudaStreamSynchronize after it [31, 122) waits for the copy.
// The next launch [125, 130) queues a kernel [130, 230); a synchronize [135, 232). Pinned with non_blocking=True
// has neither wait: the copy call takes the median launch (5 us) [15, 20), the stream synchronize its own 2 us
// [21, 23), the launch [26, 31); its kernel follows the copy (at the recording's pageable rate: no pinned copy, no
// GPU generation) by the queued gap, 1 us: [121, 221); the synchronize starts at 36 and returns 2 us after the
// kernel: 223 us. Were the stream synchronize left waiting for the copy, nothing would be gained (232 us).
TEST(WhatifPinned, TheSynchronizeAfterACopyFromPageableMemoryGoesWithIt) {
  const Trace t = copy_after_a_kernel(host_to_device(MemoryKind::Pageable, 40000), 15, 91);
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 232 * kUs);
  EXPECT_NEAR(predicted_us(*p), 223.0, 0.5);
  ASSERT_FALSE(p->applied.empty());
  EXPECT_EQ(p->applied[0],
            "1 pageable copies become asynchronous copies from pinned memory and 1 synchronizations that followed them "
            "go");
}

// On a GPU of compute capability 9 (PCIe 5.0 x16: 16 lanes x 32 GT/s x 128/130 / 8 = 63.015 GB/s a direction): a
// kernel [10, 110); a pageable copy of 10,082,462 bytes, whose call [15, 2122) holds the host, runs [110, 2110) at
// 5 GB/s; the next launch [2125, 2130) queues a kernel [2130, 2230); a synchronize [2135, 2232). The trace has no
// pinned copy: at 80% of the link's peak the copy takes 200.0 us. Pinned: the copy call takes the median launch (5
// us) and returns at 20; the next launch runs [23, 28); the copy [110, 310) follows the first kernel (as recorded,
// at once) and the kernel [311, 411) the copy (by the queued gap, 1 us); the synchronize starts at 33 and returns
// 2 us after the kernel: 413 us.
Trace pageable_copy_without_pinned(const MemcpyDetail& extra, TimeNs extra_us) {
  TraceBuilder b;
  gpu_with_100_sms(b);
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 15 * kUs, 2107 * kUs, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * kUs, 2000 * kUs, host_to_device(MemoryKind::Pageable, 10'082'462), 2);
  launch(b, 3, 2125, 5, 0, 7, 2130, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 2135 * kUs, 97 * kUs);
  if (extra.bytes > 0) {
    host_call(b, 1, 1, "cudaMemcpyAsync", 2300 * kUs, 5 * kUs, EventKind::Runtime, 4);
    memcpy_event(b, 0, 7, 2310 * kUs, extra_us * kUs, extra, 4);
  }
  measure(b, 0, 2232);
  return build(b);
}

TEST(WhatifPinned, WithoutPinnedCopiesTheRateIsTheHostLinks) {
  const Trace t = pageable_copy_without_pinned(MemcpyDetail{}, 0);
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 2232 * kUs);
  EXPECT_NEAR(predicted_us(*p), 413.0, 0.5);
  // The band: the link's peak (160 us of copy: 373 us) and half the rate (400 us: 613 us), 1% further each way.
  EXPECT_NEAR(double(p->low_ns) / double(kUs), 373.0 * 0.99, 0.5);
  EXPECT_NEAR(double(p->high_ns) / double(kUs), 613.0 * 1.01, 0.5);
  const auto says = [&](const char* text) {
    return std::any_of(p->assumptions.begin(), p->assumptions.end(),
                       [&](const std::string& a) { return a.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(says("PCIe 5.0 x16, 63.0 GB/s"));
  EXPECT_TRUE(says("does not hold the host"));
}

// A pinned copy of 2 MiB the other way (device to host, after the window) ran at 2,097,152 bytes / 100 us: the
// host-to-device copy takes that rate, 480.8 us: the copy ends at 590.8 us, the kernel (1 us after it) at 691.8, the
// window at 693.8.
TEST(WhatifPinned, TheOtherDirectionsPinnedCopiesGiveTheRate) {
  MemcpyDetail back;
  back.copy_kind = CopyKind::DeviceToHost;
  back.src_kind = MemoryKind::Device;
  back.dst_kind = MemoryKind::Pinned;
  back.bytes = 2 * 1024 * 1024;
  const Trace t = pageable_copy_without_pinned(back, 100);
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 110.0 + 10'082'462.0 * 100.0 / 2'097'152.0 + 103.0, 0.5);
}

// A DataLoader with worker processes feeding a training loop on a GPU of compute capability 9 (PCIe 5.0 x16, 80%
// of its peak: 50.412 GB/s). A launch [0, 5) runs a kernel [10, 60); the main thread receives the batch in
// __next__ [10, 310); `x = x.to(device)` is an op [320, 730) around a pageable copy call [325, 725) whose copy of
// 5,041,231 bytes runs [330, 720); nothing is recorded for 1000 us after the op (Python frees the received batch
// there); a launch [1730, 1735) runs a kernel [1740, 1840); a synchronize [1745, 1842) ends the window.
// Pinned: the pin-memory thread receives and frees the batch: the copy call follows the first launch after 20 us
// of the 320 us gap, [25, 30); the copy takes 100 us, queued 1 us behind the first kernel (the queued gap of a
// recording that shows none), [61, 161); the second launch follows after 5 us of the 1005 us gap, [35, 40); its
// kernel [162, 262); the synchronize returns 2 us later: 264 us. The band's upper end keeps both on the main thread
// and takes half the link's rate: the copy call [325, 330), its copy 200 us [335, 535), the launch [1335, 1340),
// its kernel [1345, 1445), the synchronize 1447 us; the lower end takes the link's peak (80 us: the copy [61, 141),
// the kernel [142, 242), 244 us); each 1% further.
// `op_before` names the op [10, 310) before the copy: the DataLoader's __next__, or another op.
Trace pageable_batch_copy(const char* op_before) {
  TraceBuilder b;
  gpu_with_100_sms(b);
  launch(b, 1, 0, 5, 0, 7, 10, 50);
  host_call(b, 1, 1, op_before, 10 * kUs, 300 * kUs, EventKind::CpuOp);
  host_call(b, 1, 1, "aten::to", 320 * kUs, 410 * kUs, EventKind::CpuOp);
  host_call(b, 1, 1, "cudaMemcpyAsync", 325 * kUs, 400 * kUs, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 330 * kUs, 390 * kUs, host_to_device(MemoryKind::Pageable, 5'041'231), 2);
  launch(b, 3, 1730, 5, 0, 7, 1740, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 1745 * kUs, 97 * kUs);
  measure(b, 0, 1842);
  return build(b);
}

TEST(WhatifPinned, ADataLoadersBatchIsReceivedAndFreedBesideTheMainThread) {
  const Trace t = pageable_batch_copy("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->replayed_ns, 1842 * kUs);
  EXPECT_NEAR(predicted_us(*p), 264.0, 0.5);
  EXPECT_NEAR(double(p->low_ns) / double(kUs), 244.0 * 0.99, 0.5);
  EXPECT_NEAR(double(p->high_ns) / double(kUs), 1447.0 * 1.01, 0.5);
  ASSERT_EQ(p->applied.size(), 2u);
  EXPECT_EQ(p->applied[1],
            "1 batch from a DataLoader's worker processes comes pinned from its pin-memory thread: 1.3 ms of the "
            "main thread's time moves there");
}

// The same copy without a DataLoader's __next__ before it: the host's time around it stays. The copy call [325,
// 330), its copy [335, 435), the launch [1335, 1340), its kernel [1345, 1445): 1447 us.
TEST(WhatifPinned, ACopyOfOtherDataKeepsTheHostsTimeAroundIt) {
  const Trace t = pageable_batch_copy("aten::randn");
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 1447.0, 0.5);
  EXPECT_EQ(p->applied.size(), 1u);
}

TEST(WhatifPinned, NoPageableCopyIsNothingToChange) {
  TraceBuilder b;
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  measure(b, 0, 110);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "pinned: no pageable copies in this trace's window: nothing to change");
}

// Two synchronizes wait for one kernel each: without the waits the second launch comes at 15 us, its kernel
// follows the first by the queued gap (1 us in a recording that shows none) at 106 us and ends at 206 us, which
// ends the window.
TEST(WhatifNoSync, TheHostRunsAheadAndTheGpuWorkEndsTheWindow) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 5, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * kUs, 97 * kUs);
  launch(b, 2, 110, 5, 0, 7, 115, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 120 * kUs, 97 * kUs);
  measure(b, 0, 217);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "no-sync=cudaDeviceSynchronize");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 206.0, 0.5);
  Expected<Prediction> none = predict_one(t, "no-sync=cudaStreamSynchronize");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no call named 'cudaStreamSynchronize'"), std::string::npos);
}

// Three launches of a forward, 40 us apart, each with a 1 us kernel; a synchronize 15 us after the last. As one
// graph launch (35 us, assumed) the kernels run back to back from 36 us (the least launch latency, 1 us, after the
// graph launch) and the synchronize starts 15 us after the launch: [50, 52).
TEST(WhatifGraphs, TheForwardsLaunchesBecomeOne) {
  TraceBuilder b;
  forward(b, 0, 0, 90);
  launch(b, 1, 0, 5, 0, 7, 6, 1);
  launch(b, 2, 40, 5, 0, 7, 46, 1);
  launch(b, 3, 80, 5, 0, 7, 86, 1);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 100 * kUs, 2 * kUs);
  measure(b, 0, 102);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "graphs");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 52.0, 0.5);
  EXPECT_FALSE(p->assumptions.empty());
  EXPECT_NE(p->assumptions[0].find("35 us"), std::string::npos);
}

// Blocking launches: each call returns 2 us after its kernel. Asynchronous, a call takes what it took until its
// kernel started (5 us): the second call runs [8, 13) and its kernel follows the first by the queued gap (1 us in a
// recording that shows none), [106, 206). The band's lower end takes the GPU's pickup of a launch (as long as the
// 2 us from a kernel's end to its call's return) out of each call: the first call [0, 3) and its kernel [3, 103),
// the second [6, 9) and its kernel [104, 204); 1% further.
TEST(WhatifNoLaunchBlocking, TheHostNoLongerWaitsForEachKernel) {
  TraceBuilder b;
  launch(b, 1, 0, 107, 0, 7, 5, 100);
  launch(b, 2, 110, 107, 0, 7, 115, 100);
  measure(b, 0, 217);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "no-launch-blocking");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 206.0, 0.5);
  EXPECT_NEAR(double(p->low_ns) / double(kUs), 204.0 * 0.99, 0.5);
  EXPECT_NEAR(double(p->high_ns) / double(kUs), 206.0 * 1.01, 0.5);
  ASSERT_EQ(p->applied.size(), 1u);
  EXPECT_EQ(p->applied[0], "2 launches no longer wait for their kernels");
}

// Blocking launches with 40 us of host work between them: kernels of 30, 10 and 30 us, each call returning 2 us
// after its kernel ([0, 37), [77, 94), [134, 171)). The 10 us kernel is too short to tell a blocking launch by
// itself, but every launch of a longer kernel on the thread waited: it waited too. Asynchronous, each call takes
// 5 us: [0, 5), [45, 50), [90, 95); the last kernel runs [95, 125). Keeping the short kernel's call at 17 us would
// give 137 us.
TEST(WhatifNoLaunchBlocking, ShortKernelsOfABlockingThreadWaitedToo) {
  TraceBuilder b;
  launch(b, 1, 0, 37, 0, 7, 5, 30);
  launch(b, 2, 77, 17, 0, 7, 82, 10);
  launch(b, 3, 134, 37, 0, 7, 139, 30);
  measure(b, 0, 171);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "no-launch-blocking");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 125.0, 0.5);
  ASSERT_EQ(p->applied.size(), 1u);
  EXPECT_EQ(p->applied[0], "3 launches no longer wait for their kernels");
}

// An asynchronous thread: the launch of a 30 us kernel returns before it ends; a 10 us kernel ends before its launch
// returns ([40, 57) launches [45, 55)). A short kernel alone does not tell a blocking launch: nothing to change.
TEST(WhatifNoLaunchBlocking, AShortKernelOnAnAsynchronousThreadIsNothingToChange) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 5, 30);
  launch(b, 2, 40, 17, 0, 7, 45, 10);
  measure(b, 0, 57);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "no-launch-blocking");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("nothing to change"), std::string::npos);
}

TEST(WhatifNoLaunchBlocking, AsynchronousLaunchesAreNothingToChange) {
  const Trace t = two_models_on_one_stream(400);
  Expected<Prediction> p = predict_one(t, "no-launch-blocking");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("nothing to change"), std::string::npos);
}

// Two threads of one process launch at once and their calls take 20 us; alone, a call took 5 us. As processes of
// their own, every call takes the 5 us: the second kernel's launch returns 15 us earlier, but it queues behind the
// first kernel anyway, so only the host's time shrinks: the window stays the GPU's.
TEST(WhatifProcesses, ContendedCallsTakeTheirUncontendedTime) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 5 * kUs, EventKind::Runtime, 1);  // alone
  kernel(b, 0, 7, "gemm", 5 * kUs, 100 * kUs, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 10 * kUs, 20 * kUs, EventKind::Runtime, 2);  // beside thread 2's call
  kernel(b, 0, 7, "gemm", 105 * kUs, 100 * kUs, 2);
  host_call(b, 1, 2, "cudaLaunchKernel", 12 * kUs, 20 * kUs, EventKind::Runtime, 3);
  kernel(b, 0, 7, "gemm", 205 * kUs, 100 * kUs, 3);
  host_call(b, 1, 2, "cudaLaunchKernel", 40 * kUs, 5 * kUs, EventKind::Runtime, 4);  // alone
  kernel(b, 0, 7, "gemm", 305 * kUs, 100 * kUs, 4);
  measure(b, 0, 405);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "processes");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 405.0, 0.5);
  ASSERT_FALSE(p->applied.empty());
  EXPECT_NE(p->applied[0].find("2 calls take their uncontended time"), std::string::npos);
  TraceBuilder one;
  launch(one, 1, 0, 5, 0, 7, 5, 100);
  measure(one, 0, 105);
  const Trace single = build(one);
  EXPECT_FALSE(predict_one(single, "processes").ok());
}

TEST(WhatifPlacement, AGpuTheMachineLackedIsRefused) {
  TraceBuilder b;
  forward(b, 0, 0, 20);
  forward(b, 1, 20, 40);
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  launch(b, 2, 25, 5, 0, 7, 110, 100);
  measure(b, 0, 210);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "placement=0,1");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "placement=0,1: placement= names GPU 1; the machine had 1 GPU");
  EXPECT_NE(predict_one(t, "placement=0,0,0").error().message.find("the trace has 2"), std::string::npos);
}

// On two GPUs, the second model moved to GPU 0 queues behind the first on its default stream: [10, 110), then
// [111, 211) after the queued gap (1 us in a recording that shows none); the synchronize returns 2 us later.
TEST(WhatifPlacement, WorkMovedOntoABusyGpuQueuesOnItsDefaultStream) {
  TraceBuilder b;
  forward(b, 0, 0, 20);
  forward(b, 1, 20, 40);
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  launch(b, 2, 25, 5, 1, 15, 30, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 40 * kUs, 92 * kUs);  // returns at 132, 2 us after GPU 1's kernel
  measure(b, 0, 132);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "placement=0,0");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(predicted_us(*p), 213.0, 0.5);
}

TEST(WhatifPredict, ATraceWithoutMeasurementsIsPredictedWholeAndSaysSo) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 5, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * kUs, 97 * kUs);
  launch(b, 2, 110, 5, 0, 7, 115, 100);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "no-sync=cudaDeviceSynchronize");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->whole_trace);
  EXPECT_EQ(p->window, "the whole trace");
  EXPECT_NE(p->assumptions.back().find("whole trace"), std::string::npos);
  EXPECT_NEAR(predicted_us(*p), 206.0, 0.5);  // as in TheHostRunsAheadAndTheGpuWorkEndsTheWindow
}

// A kernel recorded before its launch call (a clock the recording contradicts): still predicted, the anomaly is
// said, and the band widens by 5% more each way (6% with the spread between recordings).
TEST(WhatifPredict, AnomaliesArePredictedWithAWiderBandAndSaid) {
  TraceBuilder b;
  launch(b, 1, 10, 5, 0, 7, 5, 100);                                // the kernel starts 5 us before its launch
  host_call(b, 1, 1, "cudaDeviceSynchronize", 20 * kUs, 87 * kUs);  // returns at 107, 2 us after the kernel
  measure(b, 0, 107);
  const Trace t = build(b);
  Expected<Prediction> p = predict_one(t, "no-sync=cudaDeviceSynchronize");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_FALSE(p->warnings.empty());
  EXPECT_NE(p->warnings[0].find("before their launch call"), std::string::npos) << p->warnings[0];
  EXPECT_NEAR(predicted_us(*p), 105.0, 0.5);  // the window ends with the kernel
  EXPECT_NEAR(double(p->low_ns) / double(kUs), 105.0 * 0.94, 0.5);
  EXPECT_NEAR(double(p->high_ns) / double(kUs), 105.0 * 1.06, 0.5);
}

TEST(WhatifPredict, NoChangeIsAnError) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 5, 100);
  const Trace t = build(b);
  EXPECT_FALSE(predict(t, {}).ok());
}

}  // namespace
}  // namespace gtv::whatif
