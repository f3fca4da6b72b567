#include "gtv/model/trace_builder.h"

#include <gtest/gtest.h>

namespace gtv {
namespace {

Event make(TraceBuilder& b, std::string_view name, TimeNs start, TimeNs dur, EventKind kind,
           std::uint64_t correlation = kNoCorrelation) {
  Event e;
  e.name = b.intern(name);
  e.start_ns = start;
  e.duration_ns = dur;
  e.kind = kind;
  e.correlation_id = correlation;
  return e;
}

}  // namespace

TEST(TraceBuilder, SortsEventsAndAssignsNestingDepth) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(10, 11));
  b.add_event(host, make(b, "cudaLaunchKernel", 20, 5, EventKind::Runtime, 7));
  b.add_event(host, make(b, "aten::mm", 10, 30, EventKind::CpuOp));
  b.add_event(host, make(b, "aten::relu", 50, 10, EventKind::CpuOp));
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Lane& lane = t->lane(0);
  ASSERT_EQ(lane.events.size(), 3u);
  EXPECT_EQ(t->name(lane.events[0]), "aten::mm");
  EXPECT_EQ(lane.events[0].depth, 0);
  EXPECT_EQ(t->name(lane.events[1]), "cudaLaunchKernel");
  EXPECT_EQ(lane.events[1].depth, 1);
  EXPECT_EQ(lane.events[2].depth, 0);
  ASSERT_EQ(lane.depth_count(), 2);
  EXPECT_EQ(lane.by_depth[0], (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(lane.by_depth[1], (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(t->start_ns(), 10);
  EXPECT_EQ(t->end_ns(), 60);
  EXPECT_EQ(t->event_count(), 3u);
}

TEST(TraceBuilder, PartialOverlapStacksWithoutLosingEvents) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  b.add_event(gpu, make(b, "a", 0, 10, EventKind::Kernel));
  b.add_event(gpu, make(b, "b", 8, 10, EventKind::Kernel));  // starts inside a, ends after it
  b.add_event(gpu, make(b, "c", 20, 5, EventKind::Kernel));
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  const Lane& lane = t->lane(0);
  EXPECT_EQ(lane.events[0].depth, 0);
  EXPECT_EQ(lane.events[1].depth, 1);
  EXPECT_EQ(lane.events[2].depth, 0);
}

TEST(TraceBuilder, OrdersHostLanesBeforeGpuLanes) {
  TraceBuilder b;
  const LaneIndex gpu1 = b.lane(gpu_lane_key(1, 7));
  const LaneIndex gpu0 = b.lane(gpu_lane_key(0, 13));
  const LaneIndex gpu0s7 = b.lane(gpu_lane_key(0, 7));
  const LaneIndex host = b.lane(host_lane_key(99, 5));
  b.set_lane_name(host, "main thread");
  (void)gpu1;
  (void)gpu0;
  (void)gpu0s7;
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->lanes().size(), 4u);
  EXPECT_EQ(t->lane(0).key, host_lane_key(99, 5));
  EXPECT_EQ(t->lane(0).name, "main thread");
  EXPECT_EQ(t->lane(1).key, gpu_lane_key(0, 7));
  EXPECT_EQ(t->lane(2).key, gpu_lane_key(0, 13));
  EXPECT_EQ(t->lane(3).key, gpu_lane_key(1, 7));
  EXPECT_EQ(t->lane(3).name, "stream 7");
  EXPECT_EQ(t->find_lane(gpu_lane_key(0, 13)), LaneIndex{2});
  EXPECT_FALSE(t->find_lane(gpu_lane_key(5, 5)).has_value());
}

TEST(TraceBuilder, JoinsLaunchesToKernelsByCorrelation) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  b.add_kernel(gpu, make(b, "gemm", 100, 50, EventKind::Kernel, 42),
               KernelDetail{{4, 1, 1}, {256, 1, 1}, 32, 0, 0, -1});
  b.add_kernel(gpu, make(b, "orphan", 200, 5, EventKind::Kernel, 43), KernelDetail{});
  b.add_event(host, make(b, "cuLaunchKernel", 12, 3, EventKind::Driver, 42));
  b.add_event(host, make(b, "cudaLaunchKernel", 10, 8, EventKind::Runtime, 42));
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->flows().size(), 1u);
  const Flow& f = t->flows()[0];
  EXPECT_EQ(f.correlation_id, 42u);
  EXPECT_EQ(t->name(t->event(f.from)), "cudaLaunchKernel");  // runtime preferred over driver
  EXPECT_EQ(t->name(t->event(f.to)), "gemm");
  EXPECT_EQ(t->flow_of(f.to), f);
  EXPECT_EQ(t->flow_of(f.from), f);
  EXPECT_FALSE(t->flow_of(EventRef{1, 1}).has_value());
  const KernelDetail* k = t->kernel_detail(t->event(f.to));
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->block[0], 256);
}

// A CUDA graph launch starts every kernel of its graph under its one correlation id: one flow to each, in kernel
// order; an event that launched nothing has none.
TEST(TraceBuilder, OneLaunchWithSeveralKernelsHasAFlowToEach) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  b.add_event(host, make(b, "cudaGraphLaunch", 10, 8, EventKind::Runtime, 42));
  b.add_event(host, make(b, "cudaLaunchKernel", 30, 8, EventKind::Runtime, 43));
  for (int i = 0; i < 3; ++i)
    b.add_kernel(gpu, make(b, "gemm", 100 + 10 * i, 5, EventKind::Kernel, 42), KernelDetail{});
  b.add_kernel(gpu, make(b, "relu", 200, 5, EventKind::Kernel, 43), KernelDetail{});
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  const std::vector<Flow> graph = t->flows_from(EventRef{0, 0});
  ASSERT_EQ(graph.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(graph[i].to, (EventRef{1, i}));
  ASSERT_EQ(t->flows_from(EventRef{0, 1}).size(), 1u);
  EXPECT_EQ(t->flows_from(EventRef{0, 1})[0].to, (EventRef{1, 3}));
  EXPECT_TRUE(t->flows_from(EventRef{1, 0}).empty());  // a kernel launches nothing
}

TEST(TraceBuilder, FlowHintsJoinEventsWithoutCorrelation) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  b.add_event(host, make(b, "cudaLaunchKernel", 10, 8, EventKind::Runtime));
  b.add_event(gpu, make(b, "gemm", 100, 50, EventKind::Kernel));
  b.add_flow_hint(5, host, 10, gpu, 100);
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->flows().size(), 1u);
  EXPECT_EQ(t->name(t->event(t->flows()[0].from)), "cudaLaunchKernel");
  EXPECT_EQ(t->name(t->event(t->flows()[0].to)), "gemm");
}

TEST(TraceBuilder, ReserveForGrowthMakesRoomAndChangesNothingElse) {
  auto fill = [](TraceBuilder& b, int from, int to) {
    const LaneIndex host = b.lane(host_lane_key(1, 1));
    const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
    for (int i = from; i < to; ++i) {
      b.add_event(host, make(b, "cudaLaunchKernel", 100 * i, 5, EventKind::Runtime, static_cast<std::uint64_t>(i + 1)));
      b.add_kernel(gpu, make(b, "gemm", 100 * i + 20, 50, EventKind::Kernel, static_cast<std::uint64_t>(i + 1)),
                   KernelDetail{{i, 1, 1}, {128, 1, 1}, 32, 0, 0, -1});
    }
  };
  TraceBuilder plain, sized;
  fill(plain, 0, 1000);
  fill(sized, 0, 100);
  sized.reserve_for_growth(12.0);  // as a reader does after a 16th of its input: room for 1200 per lane
  sized.reserve_for_growth(0.5);   // less than there is: nothing to do
  sized.reserve_for_growth(1e30);  // more than a vector can hold: ignored, not thrown
  fill(sized, 100, 1000);
  Expected<Trace> a = plain.build();
  Expected<Trace> b = sized.build();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->lanes().size(), b->lanes().size());
  for (LaneIndex l = 0; l < a->lanes().size(); ++l) {
    const auto& ea = a->lane(l).events;
    const auto& eb = b->lane(l).events;
    ASSERT_EQ(ea.size(), 1000u);
    ASSERT_EQ(ea.size(), eb.size());
    for (std::size_t i = 0; i < ea.size(); ++i) {
      EXPECT_EQ(ea[i].start_ns, eb[i].start_ns);
      EXPECT_EQ(ea[i].correlation_id, eb[i].correlation_id);
      EXPECT_EQ(a->name(ea[i]), b->name(eb[i]));
    }
    EXPECT_GE(eb.capacity(), 1200u);  // one allocation for all 1000 events
  }
  ASSERT_EQ(b->kernel_details().size(), 1000u);
  EXPECT_GE(b->kernel_details().capacity(), 1200u);
  EXPECT_EQ(b->kernel_details()[999].grid[0], 999);
  EXPECT_EQ(a->flows(), b->flows());
  // An estimate far above what came is given back at build(): 10,000 reserved for 20 events.
  TraceBuilder overestimated;
  fill(overestimated, 0, 10);
  overestimated.reserve_for_growth(1000.0);
  Expected<Trace> c = overestimated.build();
  ASSERT_TRUE(c.ok());
  EXPECT_LT(c->lane(0).events.capacity(), 1000u);
  EXPECT_LT(c->kernel_details().capacity(), 1000u);
}

TEST(TraceBuilder, RejectsNegativeDurations) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  b.add_event(host, make(b, "broken", 10, -5, EventKind::CpuOp));
  Expected<Trace> t = b.build();
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("negative duration"), std::string::npos);
  EXPECT_NE(t.error().message.find("broken"), std::string::npos);
}

TEST(TraceBuilder, KeepsRangesMeasurementsDevicesAndCounters) {
  TraceBuilder b;
  b.metadata().source_tool = "gtv test";
  b.metadata().origin_unix_ns = 1'700'000'000'000'000'000;
  b.add_range(Range{"iteration 1", RangeKind::Iteration, 50, 90, 1, 1, -1});
  b.add_range(Range{"warm-up", RangeKind::WarmUp, 0, 40, 1, 1, -1});
  b.add_measurement(Measurement{"timed loop", MeasurementMethod::StopwatchNoSync, 10, 0, 10, 1, 1});
  b.add_device(DeviceInfo{1, "NVIDIA H200", 143'000'000'000, 9, 0, 132});
  b.add_device(DeviceInfo{0, "NVIDIA H200", 143'000'000'000, 9, 0, 132});
  b.process(1).name = "python";
  b.add_counter_sample(1, "memory", {30, 2.0});
  b.add_counter_sample(1, "memory", {10, 1.0});
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ranges()[0].name, "warm-up");
  EXPECT_EQ(t->measurements().size(), 1u);
  EXPECT_EQ(t->devices()[0].index, 0);
  ASSERT_NE(t->device(1), nullptr);
  EXPECT_EQ(t->device(1)->sm_count, 132);
  EXPECT_EQ(t->processes()[0].name, "python");
  ASSERT_EQ(t->counters().size(), 1u);
  EXPECT_EQ(t->counters()[0].samples[0].time_ns, 10);
  EXPECT_EQ(t->start_ns(), 0);
  EXPECT_EQ(t->end_ns(), 90);
  EXPECT_EQ(t->metadata().source_tool, "gtv test");
}

TEST(TraceBuilder, OtherCategoriesKeepTheirText) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  b.add_other(host, make(b, "fwd", 0, 1, EventKind::Other), "python_function");
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->category(t->lane(0).events[0]), "python_function");
}

TEST(EventNames, RoundTripEnumsThroughText) {
  EXPECT_EQ(copy_kind_from_string(to_string(CopyKind::DeviceToHost)), CopyKind::DeviceToHost);
  EXPECT_EQ(memory_kind_from_string(to_string(MemoryKind::Pinned)), MemoryKind::Pinned);
  EXPECT_EQ(range_kind_from_string("warmup"), RangeKind::WarmUp);
  EXPECT_EQ(range_kind_from_string("nonsense"), RangeKind::User);
  EXPECT_EQ(measurement_method_from_string("cuda-events"), MeasurementMethod::CudaEvents);
  EXPECT_EQ(kineto_category(EventKind::Memcpy), "gpu_memcpy");
}

}  // namespace gtv
