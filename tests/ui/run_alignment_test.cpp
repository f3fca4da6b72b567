// The alignment anchor of stacked runs.
#include "gtv/ui/run_alignment.h"

#include <gtest/gtest.h>

#include "gtv/model/trace_builder.h"

namespace gtv::ui {
namespace {

constexpr TimeNs kUs = 1000;

Event event_at(TraceBuilder& b, TimeNs start_us, TimeNs dur_us, EventKind kind, const char* name) {
  Event e;
  e.start_ns = start_us * kUs;
  e.duration_ns = dur_us * kUs;
  e.kind = kind;
  e.name = b.intern(name);
  return e;
}

void add_warmup(TraceBuilder& b, TimeNs start_us, TimeNs end_us) {
  Range r;
  r.name = "warm-up";
  r.kind = RangeKind::WarmUp;
  r.start_ns = start_us * kUs;
  r.end_ns = end_us * kUs;
  b.add_range(r);
}

// GPU 0: kernels at 10 and 150 us, a copy at 135 us; GPU 1: kernels at 120 and 200 us; host op at 0.
Trace two_gpu_trace(bool with_warmups) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  const LaneIndex gpu0 = b.lane(gpu_lane_key(0, 7));
  const LaneIndex gpu1 = b.lane(gpu_lane_key(1, 7));
  b.add_event(host, event_at(b, 0, 300, EventKind::CpuOp, "forward"));
  b.add_kernel(gpu0, event_at(b, 10, 5, EventKind::Kernel, "k"), {});
  b.add_kernel(gpu0, event_at(b, 150, 5, EventKind::Kernel, "k"), {});
  b.add_memcpy(gpu0, event_at(b, 135, 5, EventKind::Memcpy, "copy"), {});
  b.add_kernel(gpu1, event_at(b, 120, 5, EventKind::Kernel, "k"), {});
  b.add_kernel(gpu1, event_at(b, 200, 5, EventKind::Kernel, "k"), {});
  if (with_warmups) {
    add_warmup(b, 0, 100);
    add_warmup(b, 110, 130);  // the last warm-up ends at 130 us
  }
  return std::move(b.build().value());
}

TEST(RunAlignment, FirstKernelAfterTheLastWarmUp) {
  const Trace trace = two_gpu_trace(true);
  // After 130 us: GPU 0's kernel at 150 (the copy at 135 is no kernel), GPU 1's at 200 -> 150 us.
  EXPECT_EQ(steady_state_anchor_ns(trace), 150 * kUs);
  EXPECT_EQ(alignment_anchor_ns(trace), 150 * kUs);
  // Steady part: from 150 us to the end of GPU 1's kernel at 200 + 5 us.
  EXPECT_EQ(steady_span_ns(trace), 55 * kUs);
}

TEST(RunAlignment, WithoutWarmUpTheFirstKernel) {
  const Trace trace = two_gpu_trace(false);
  EXPECT_EQ(steady_state_anchor_ns(trace), 10 * kUs);
  EXPECT_EQ(steady_span_ns(trace), 195 * kUs);
}

TEST(RunAlignment, SteadySpanCountsCopiesEndingLast) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  b.add_kernel(gpu, event_at(b, 40, 5, EventKind::Kernel, "k"), {});
  b.add_memcpy(gpu, event_at(b, 50, 30, EventKind::Memcpy, "copy"), {});
  const Trace trace = std::move(b.build().value());
  EXPECT_EQ(steady_span_ns(trace), 40 * kUs);  // 40 us to the copy's end at 80 us
}

TEST(RunAlignment, KernelStartingAtTheWarmUpEndCounts) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  b.add_kernel(gpu, event_at(b, 40, 5, EventKind::Kernel, "k"), {});
  b.add_kernel(gpu, event_at(b, 100, 5, EventKind::Kernel, "k"), {});
  add_warmup(b, 20, 100);
  const Trace trace = std::move(b.build().value());
  EXPECT_EQ(steady_state_anchor_ns(trace), 100 * kUs);
}

TEST(RunAlignment, NoKernelFallsBackToTheTraceStart) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  b.add_event(host, event_at(b, 30, 10, EventKind::CpuOp, "aten::mm"));
  b.add_event(host, event_at(b, 70, 10, EventKind::CpuOp, "aten::mm"));
  const Trace trace = std::move(b.build().value());
  EXPECT_FALSE(steady_state_anchor_ns(trace).has_value());
  EXPECT_EQ(alignment_anchor_ns(trace), 30 * kUs);
  EXPECT_EQ(steady_span_ns(trace), 0);
}

TEST(RunAlignment, OffsetsAgainstTheFirstRun) {
  EXPECT_EQ(alignment_offsets_ns({5, 2, 9}), (std::vector<TimeNs>{0, -3, 4}));
  EXPECT_TRUE(alignment_offsets_ns({}).empty());
}

}  // namespace
}  // namespace gtv::ui
