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

}  // namespace
}  // namespace gtv::ui
