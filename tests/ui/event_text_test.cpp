#include "gtv/ui/event_text.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "gtv/model/trace_builder.h"

namespace gtv::ui {
namespace {

Trace copy_trace() {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(1, 7));
  Event e;
  e.start_ns = 2'500'000;
  e.duration_ns = 1'234'567;
  e.kind = EventKind::Memcpy;
  e.name = b.intern("Memcpy DtoH (Device -> Pageable)");
  e.correlation_id = 42;
  b.add_memcpy(gpu, e, MemcpyDetail{4'000'000, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pageable, -1});
  return std::move(b.build().value());
}

TEST(EventText, BytesWithUnitAndExactCount) {
  EXPECT_EQ(format_bytes(512), "512 bytes");
  EXPECT_EQ(format_bytes(4'000'000), "4.00 MB (4,000,000 bytes)");
  EXPECT_EQ(format_bytes(1'500), "1.50 kB (1,500 bytes)");
}

TEST(EventText, TooltipOfACopy) {
  const Trace t = copy_trace();
  EXPECT_EQ(tooltip_text(t, {0, 0}),
            "Memcpy DtoH (Device -> Pageable)\n"
            "start: 2.500000 ms\n"
            "duration: 1.234567 ms\n"
            "where: GPU 1 / stream 7\n"
            "correlation: 42\n"
            "bytes: 4.00 MB (4,000,000 bytes)\n"
            "copy kind: DtoH\n"
            "memory: Device -> Pageable\n"
            "throughput: 3.24 GB/s");
}

// One cudaGraphLaunch (correlation 88) that ran three kernels of graph 3, and an ordinary launch of one kernel.
Trace graph_launch_trace() {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(10, 11));
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  Event launch;
  launch.start_ns = 1'000;
  launch.duration_ns = 2'000;
  launch.kind = EventKind::Runtime;
  launch.name = b.intern("cudaGraphLaunch");
  launch.correlation_id = 88;
  b.add_event(host, launch);
  Event single = launch;
  single.start_ns = 4'000;
  single.name = b.intern("cudaLaunchKernel");
  single.correlation_id = 89;
  b.add_event(host, single);
  for (int node = 0; node < 3; ++node) {
    Event k;
    k.start_ns = 10'000 + node * 1'000;
    k.duration_ns = 500;
    k.kind = EventKind::Kernel;
    k.name = b.intern(node == 1 ? "relu" : "gemm");
    k.correlation_id = 88;
    KernelDetail d;
    d.graph_id = 3;
    d.graph_node_id = 17 + static_cast<std::uint64_t>(node);
    b.add_kernel(gpu, k, d);
  }
  Event alone;
  alone.start_ns = 20'000;
  alone.duration_ns = 500;
  alone.kind = EventKind::Kernel;
  alone.name = b.intern("softmax");
  alone.correlation_id = 89;
  b.add_kernel(gpu, alone, KernelDetail{});
  return std::move(b.build().value());
}

std::string field_of(const Trace& t, EventRef ref, const std::string& key) {
  for (const Field& f : event_fields(t, ref))
    if (f.first == key) return f.second;
  return "(none)";
}

// A graph kernel is grouped under its launch: graph, node, the launch's name and its correlation id.
TEST(EventText, GraphKernelNamesItsGraphNodeAndLaunch) {
  const Trace t = graph_launch_trace();
  EXPECT_EQ(field_of(t, {1, 1}, "graph"), "graph 3, node 18, launched by cudaGraphLaunch (correlation 88)");
  EXPECT_EQ(field_of(t, {1, 1}, "launched by"), "cudaGraphLaunch (Process 10 / thread 11)");
  EXPECT_NE(tooltip_text(t, {1, 1}).find("\ngraph: graph 3, node 18, launched by cudaGraphLaunch (correlation 88)\n"),
            std::string::npos)
      << tooltip_text(t, {1, 1});
  EXPECT_EQ(field_of(t, {1, 3}, "graph"), "(none)");  // launched on its own
}

// The launch counts the kernels it started and names its graph; an ordinary launch still names its one kernel.
TEST(EventText, GraphLaunchCountsItsKernels) {
  const Trace t = graph_launch_trace();
  EXPECT_EQ(field_of(t, {0, 0}, "launches"), "3 kernels, first gemm (GPU 0 / stream 7)");
  EXPECT_EQ(field_of(t, {0, 0}, "graph"), "graph 3, 3 kernels");
  EXPECT_NE(
      tooltip_text(t, {0, 0}).find("\nlaunches: 3 kernels, first gemm (GPU 0 / stream 7)\ngraph: graph 3, 3 kernels"),
      std::string::npos)
      << tooltip_text(t, {0, 0});
  EXPECT_EQ(field_of(t, {0, 1}, "launches"), "softmax (GPU 0 / stream 7)");
  EXPECT_EQ(field_of(t, {0, 1}, "graph"), "(none)");
}

// A graph kernel whose launch the trace lacks (API tracing was off) still names its graph and node, and says so.
TEST(EventText, GraphKernelWithoutItsLaunch) {
  TraceBuilder b;
  Event k;
  k.duration_ns = 500;
  k.kind = EventKind::Kernel;
  k.name = b.intern("gemm");
  k.correlation_id = 5;
  KernelDetail d;
  d.graph_id = 2;
  d.graph_node_id = 9;
  b.add_kernel(b.lane(gpu_lane_key(0, 7)), k, d);
  const Trace t = std::move(b.build().value());
  EXPECT_EQ(field_of(t, {0, 0}, "graph"),
            "graph 2, node 9, launched by a graph launch not in this trace (correlation 5)");
}

// Args the model does not hold follow the modelled fields, in file order: strings without quotes, other JSON as
// written.
TEST(EventText, ExtraArgsAreListedAfterTheModelledFields) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  Event e;
  e.duration_ns = 1'000;
  e.kind = EventKind::CpuOp;
  e.name = b.intern("aten::mm");
  const EventArg args[] = {
      {"Input Dims", "[[256,512],[512,512]]"}, {"Input type", "\"float\""}, {"External id", "515"}};
  e.args = b.add_args(args);
  b.add_event(host, e);
  const Trace t = std::move(b.build().value());
  const std::vector<Field> fields = event_fields(t, {0, 0});
  ASSERT_GE(fields.size(), 3u);
  const std::vector<Field> last(fields.end() - 3, fields.end());
  EXPECT_EQ(last, (std::vector<Field>{
                      {"Input Dims", "[[256,512],[512,512]]"}, {"Input type", "float"}, {"External id", "515"}}));
  EXPECT_NE(tooltip_text(t, {0, 0}).find("\nInput Dims: [[256,512],[512,512]]\nInput type: float\nExternal id: 515"),
            std::string::npos);
}

// A forward op names its backward op and the other way round, with where it ran.
TEST(EventText, ForwardAndBackwardOpsNameEachOther) {
  TraceBuilder b;
  const LaneIndex main = b.lane(host_lane_key(10, 11));
  const LaneIndex autograd = b.lane(host_lane_key(10, 12));
  Event forward;
  forward.duration_ns = 100;
  forward.kind = EventKind::CpuOp;
  forward.name = b.intern("aten::convolution");
  b.add_event(main, forward);
  Event backward = forward;
  backward.start_ns = 1'000;
  backward.name = b.intern("ConvolutionBackward0");
  b.add_event(autograd, backward);
  b.add_backward_hint(7, main, 0, autograd, 1'000);
  const Trace t = std::move(b.build().value());
  const auto field = [&](EventRef ref, const std::string& key) {
    for (const Field& f : event_fields(t, ref))
      if (f.first == key) return f.second;
    return std::string("(none)");
  };
  EXPECT_EQ(field({0, 0}, "backward"), "ConvolutionBackward0 (Process 10 / thread 12)");
  EXPECT_EQ(field({1, 0}, "forward"), "aten::convolution (Process 10 / thread 11)");
  EXPECT_EQ(field({0, 0}, "launches"), "(none)");
  EXPECT_TRUE(t.flows().empty());
}

// Kineto's External id, kept beside the args, is a field of its own after the correlation id.
TEST(EventText, ExternalIdFollowsTheCorrelation) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(1, 1));
  Event e;
  e.duration_ns = 1'000;
  e.kind = EventKind::Runtime;
  e.correlation_id = 42;
  e.name = b.intern("cudaLaunchKernel");
  const EventArg args[] = {{"cbid", "211"}};
  e.args = b.add_external_id(b.add_args(args), 515);
  b.add_event(host, e);
  const Trace t = std::move(b.build().value());
  const std::vector<Field> fields = event_fields(t, {0, 0});
  const auto correlation = std::find(fields.begin(), fields.end(), Field{"correlation", "42"});
  ASSERT_NE(correlation, fields.end());
  ASSERT_NE(correlation + 1, fields.end());
  EXPECT_EQ(*(correlation + 1), (Field{"External id", "515"}));
  EXPECT_EQ(fields.back(), (Field{"cbid", "211"}));
  EXPECT_NE(tooltip_text(t, {0, 0}).find("\nExternal id: 515"), std::string::npos);
}

// A kernel whose file gave no launch configuration says so instead of showing grid (0, 0, 0) and 0 registers.
TEST(EventText, AKernelWithoutLaunchConfigurationSaysSo) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  Event k;
  k.duration_ns = 1'000;
  k.name = b.intern("consumer");
  b.add_kernel(gpu, k, KernelDetail{});
  Event configured = k;
  configured.start_ns = 5'000;
  KernelDetail d;
  d.grid[0] = 128;
  d.grid[1] = d.grid[2] = 1;
  d.block[0] = 256;
  d.block[1] = d.block[2] = 1;
  d.registers_per_thread = 32;
  b.add_kernel(gpu, configured, d);
  const Trace t = std::move(b.build().value());
  const std::vector<Field> bare = event_fields(t, {0, 0});
  EXPECT_NE(std::find(bare.begin(), bare.end(), Field{"launch configuration", "not in the trace"}), bare.end());
  for (const Field& f : bare) EXPECT_NE(f.first, "grid");
  const std::vector<Field> full = event_fields(t, {0, 1});
  EXPECT_NE(std::find(full.begin(), full.end(), Field{"grid", "(128, 1, 1)"}), full.end());
  EXPECT_NE(std::find(full.begin(), full.end(), Field{"registers/thread", "32"}), full.end());
  for (const Field& f : full) EXPECT_NE(f.first, "launch configuration");
}

// A kernel is shown by its demangled name in full, its symbol kept in the details; where another event names it
// (the launch's "launches"), it goes by the name its block is labelled with.
TEST(EventText, KernelNamesAreDemangledAndTheirNeighboursShortened) {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(10, 11));
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  const std::string bn =
      "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float, float, float, "
      "float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, "
      "float*, float const*, float*, float*, float const*, float const*, float)";
  int correlation = 1;
  for (const std::string& name : {bn, std::string("_Z6kernelPfi")}) {
    Event launch;
    launch.start_ns = correlation * 10'000;
    launch.duration_ns = 1'000;
    launch.kind = EventKind::Runtime;
    launch.name = b.intern("cudaLaunchKernel");
    launch.correlation_id = correlation;
    b.add_event(host, launch);
    Event k;
    k.start_ns = launch.start_ns + 2'000;
    k.duration_ns = 500;
    k.kind = EventKind::Kernel;
    k.name = b.intern(name);
    k.correlation_id = correlation++;
    b.add_kernel(gpu, k, KernelDetail{});
  }
  const Trace t = std::move(b.build().value());
  EXPECT_EQ(field_of(t, {0, 0}, "launches"),
            "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1> (GPU 0 / stream 7)");
  EXPECT_EQ(display_name(t, t.event({1, 0})), "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>");
  EXPECT_EQ(field_of(t, {1, 0}, "name"), bn);
  EXPECT_EQ(field_of(t, {1, 0}, "symbol"), "(none)");
  EXPECT_EQ(field_of(t, {1, 1}, "name"), "kernel(float*, int)");
  EXPECT_EQ(field_of(t, {1, 1}, "symbol"), "_Z6kernelPfi");
  EXPECT_EQ(field_of(t, {0, 1}, "launches"), "kernel(float*, int) (GPU 0 / stream 7)");
  const std::string tooltip = tooltip_text(t, {1, 1});
  EXPECT_EQ(tooltip.substr(0, tooltip.find('\n')), "kernel(float*, int)");
  EXPECT_EQ(tooltip.find("_Z6kernelPfi"), std::string::npos);  // the details panel keeps the symbol
  EXPECT_EQ(display_name(t, t.event({0, 0})), "cudaLaunchKernel");
}

}  // namespace
}  // namespace gtv::ui
