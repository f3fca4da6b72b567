#include "gtv/ui/event_text.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gtv::ui
