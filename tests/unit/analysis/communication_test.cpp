// Communication against computation per GPU, worked out by hand on small traces.
#include "gtv/analysis/communication.h"

#include <gtest/gtest.h>

#include "gtv/analysis/report.h"
#include "trace_helpers.h"

namespace gtv::analysis {
namespace {

using testing::build;
using testing::kernel;
using testing::memcpy_event;

// GPU 0: an all-reduce [100, 200) on stream 20 beside computation [50, 130) and [150, 160) on stream 7, and a copy
// [170, 190) that is neither; a second all-reduce [300, 340) with nothing beside it.
Trace two_collectives() {
  TraceBuilder b;
  kernel(b, 0, 7, "sm90_xmma_gemm", 50, 80);
  kernel(b, 0, 7, "elementwise_kernel", 150, 10);
  kernel(b, 0, 20, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100, 100);
  memcpy_event(b, 0, 7, 170, 20);
  kernel(b, 0, 20, "ncclKernel_AllReduce_RING_LL_Sum_float", 300, 40);
  // GPU 1 computes only: no line for it.
  kernel(b, 1, 7, "sm90_xmma_gemm", 0, 500);
  return build(b);
}

TEST(Communication, OverlapAndExposedTimeFollowHtasDefinition) {
  const Communication c = analyze_communication(two_collectives());
  ASSERT_EQ(c.devices.size(), 1u);
  const DeviceCommunication& d = c.devices[0];
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.communication_kernels, 2u);
  EXPECT_EQ(d.communication_ns, 140);  // [100, 200) and [300, 340)
  EXPECT_EQ(d.computation_ns, 90);     // [50, 130) and [150, 160)
  EXPECT_EQ(d.memory_ns, 20);
  EXPECT_EQ(d.overlap_ns, 40);  // [100, 130) and [150, 160); the copy at [170, 190) is not computation
  EXPECT_EQ(d.exposed_ns, 100);
  EXPECT_DOUBLE_EQ(d.overlap_ratio(), 40.0 / 140.0);
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.lines[0],
            "GPU 0: communication kernels (2) ran 140 ns, 40 ns of it (29%) while computation kernels ran on the same "
            "GPU; 100 ns exposed (no computation beside it). Computation kernels ran 90 ns, copies and sets 20 ns.");
  EXPECT_NE(c.lines[1].find("get_comm_comp_overlap"), std::string::npos);
}

TEST(Communication, OverlappingCollectivesCountTheirUnionOnce) {
  TraceBuilder b;
  kernel(b, 0, 20, "ncclDevKernel_AllReduce", 0, 100);
  kernel(b, 0, 21, "ncclDevKernel_AllGather", 50, 100);
  kernel(b, 0, 7, "gemm", 0, 10);
  kernel(b, 0, 8, "gemm", 5, 10);
  const Communication c = analyze_communication(build(b));
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].communication_ns, 150);
  EXPECT_EQ(c.devices[0].computation_ns, 15);
  EXPECT_EQ(c.devices[0].overlap_ns, 15);
  EXPECT_EQ(c.devices[0].exposed_ns, 135);
}

TEST(Communication, TheRankIsNamedAndOtherRanksPointedTo) {
  TraceBuilder b;
  kernel(b, 1, 20, "ncclDevKernel_AllReduce", 0, 100);
  b.metadata().distributed = DistributedInfo{1, 2, "nccl"};
  const Communication c = analyze_communication(build(b));
  ASSERT_EQ(c.lines.size(), 3u);
  EXPECT_EQ(c.lines[0].rfind("GPU 1 (rank 1 of 2): communication kernels (1) ran 100 ns, 0 ns of it (0%)", 0), 0u)
      << c.lines[0];
  EXPECT_NE(c.lines[0].find("Computation kernels ran 0 ns."), std::string::npos) << c.lines[0];
  EXPECT_EQ(c.lines[2], "The other ranks' GPUs are in their own files: open them together (gtv-cli merge) to compare.");
}

// Traces without communication kernels (every bundled recording) have no such section; JSON has the key.
TEST(Communication, NoSectionWithoutCommunicationKernels) {
  TraceBuilder b;
  kernel(b, 0, 7, "gemm", 0, 10);
  const Trace t = build(b);
  const Report r = analyze(t);
  EXPECT_TRUE(r.communication.devices.empty());
  EXPECT_EQ(format_report(r, Format::Text).find("Communication and computation"), std::string::npos);
  const std::string json = format_report(r, Format::Json);
  EXPECT_NE(json.find("\"communication\": {\n    \"devices\": [],\n    \"lines\": []\n  }"), std::string::npos) << json;
  const Report with = analyze(two_collectives());
  const std::string text = format_report(with, Format::Text);
  const auto section = text.find("Communication and computation\n-----------------------------");
  ASSERT_NE(section, std::string::npos) << text;
  EXPECT_LT(text.find("Kernels"), section);                     // after the kernel table
  EXPECT_LT(section, text.find("Tracing cost\n------------"));  // before the tracing cost
}

}  // namespace
}  // namespace gtv::analysis
