// The capture range and the event limit in front of the TraceRecorder: which records reach the trace, what is
// counted, and the notes that say so.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "gtv/collect/capture_gate.h"
#include "gtv/collect/capture_sink.h"
#include "gtv/collect/trace_recorder.h"

namespace gtv::collect {
namespace {

constexpr UnixNs kT0 = 1'790'000'000'000'000'000;

KernelRecord kernel_at(UnixNs start_ns) {
  KernelRecord k;
  k.name = "gemm";
  k.start_ns = start_ns;
  k.end_ns = start_ns + 100;
  k.device = 0;
  k.stream = 7;
  return k;
}

TEST(CaptureGate, WindowsOpenAndCloseAsTheProgramSays) {
  CaptureGate gate;
  EXPECT_FALSE(gate.contains(kT0));
  gate.close(kT0);  // closing a closed gate does nothing
  gate.open(kT0 + 10);
  gate.open(kT0 + 15);  // already open: the window keeps its start
  EXPECT_TRUE(gate.contains(kT0 + 10));
  EXPECT_TRUE(gate.contains(kT0 + 1'000'000));  // still open
  gate.close(kT0 + 20);
  gate.open(kT0 + 40);
  gate.close(kT0 + 50);
  EXPECT_EQ(gate.window_count(), 2u);
  EXPECT_FALSE(gate.contains(kT0 + 9));
  EXPECT_TRUE(gate.contains(kT0 + 19));
  EXPECT_FALSE(gate.contains(kT0 + 20));
  EXPECT_FALSE(gate.contains(kT0 + 30));
  EXPECT_TRUE(gate.contains(kT0 + 45));
  EXPECT_TRUE(CaptureGate::always_open().contains(0));
  const CaptureGate timed = CaptureGate::window(kT0, kT0 + 5);
  EXPECT_TRUE(timed.contains(kT0 + 4));
  EXPECT_FALSE(timed.contains(kT0 + 5));
  EXPECT_TRUE(CaptureGate::window(kT0, kT0).contains(kT0 + 1'000'000'000));  // no end: to the end
}

TEST(NvtxRangeWatch, NestedPushesOfTheNameAndOtherRangesOnOtherThreads) {
  NvtxRangeWatch watch("step");
  using C = NvtxRangeWatch::Change;
  EXPECT_EQ(watch.pop(1), C::None);  // pushed before recording began
  EXPECT_EQ(watch.push(1, "forward"), C::None);
  EXPECT_EQ(watch.push(1, "step"), C::Opened);
  EXPECT_EQ(watch.push(2, "step"), C::None);  // a second one while open
  EXPECT_EQ(watch.push(1, "inner"), C::None);
  EXPECT_EQ(watch.pop(1), C::None);  // "inner"
  EXPECT_EQ(watch.pop(1), C::None);  // thread 1's "step"; thread 2's still open
  EXPECT_EQ(watch.pop(2), C::Closed);
  EXPECT_EQ(watch.pop(1), C::None);  // "forward"
  EXPECT_EQ(watch.start(7, "step"), C::Opened);
  EXPECT_EQ(watch.start(8, "other"), C::None);
  EXPECT_EQ(watch.end(8), C::None);
  EXPECT_EQ(watch.end(7), C::Closed);
  EXPECT_EQ(watch.end(7), C::None);
}

TEST(CaptureSink, KeepsWhatStartsInsideAndCountsTheRest) {
  TraceRecorder recorder(kT0);
  const CaptureGate gate = CaptureGate::window(kT0 + 1'000, kT0 + 2'000);
  CaptureSink sink(recorder, gate, 100);
  sink.on_kernel(kernel_at(kT0 + 500));    // before
  sink.on_kernel(kernel_at(kT0 + 1'500));  // inside
  sink.on_kernel(kernel_at(kT0 + 2'500));  // after
  ApiCallRecord api;
  api.name = "cudaLaunchKernel";
  api.start_ns = kT0 + 1'400;
  api.end_ns = kT0 + 1'450;
  api.pid = 10;
  api.tid = 11;
  sink.on_api_call(api);
  sink.on_device(DeviceRecord{DeviceInfo{0, "NVIDIA H200", 0, 9, 0, 132}});  // descriptions always pass
  EXPECT_EQ(sink.seen(), 4);
  EXPECT_EQ(sink.kept(), 2);
  EXPECT_EQ(sink.outside(), 2);
  EXPECT_EQ(sink.over_limit(), 0);
  const std::vector<std::string> notes = sink.notes("from 1 s after the start");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "capture range from 1 s after the start: 1 window; 2 of 4 records lay outside and were left out");
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->event_count(), 2u);
  EXPECT_EQ(trace->devices().size(), 1u);
}

TEST(CaptureSink, TheEventLimitHoldsUnderConcurrentBuffersAndSaysWhatItCost) {
  TraceRecorder recorder(kT0);
  const CaptureGate gate = CaptureGate::always_open();
  CaptureSink sink(recorder, gate, 1'000);
  std::vector<std::thread> buffers;
  for (int t = 0; t < 4; ++t)
    buffers.emplace_back([&sink, t] {
      for (int i = 0; i < 500; ++i) sink.on_kernel(kernel_at(kT0 + t * 1'000'000 + i * 200));
    });
  for (std::thread& b : buffers) b.join();
  EXPECT_EQ(sink.kept(), 1'000);
  EXPECT_EQ(sink.over_limit(), 1'000);
  EXPECT_EQ(recorder.event_count(), 1'000u);
  const std::vector<std::string> notes = sink.notes("the whole run");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("the event limit (--max-events 1000) was reached: 1000 of 2000 records", 0), 0u) << notes[0];
}

TEST(CaptureSink, ARangeThatNeverBeganSaysSo) {
  TraceRecorder recorder(kT0);
  const CaptureGate gate;  // cudaProfilerStart never called
  CaptureSink sink(recorder, gate, 10);
  sink.on_kernel(kernel_at(kT0));
  EXPECT_EQ(sink.kept(), 0);
  EXPECT_EQ(sink.notes("between cudaProfilerStart and cudaProfilerStop"),
            std::vector<std::string>{"the capture range (between cudaProfilerStart and cudaProfilerStop) never "
                                     "began: nothing of the run was kept"});
}

}  // namespace
}  // namespace gtv::collect
