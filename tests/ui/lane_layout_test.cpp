#include "gtv/ui/lane_layout.h"

#include <gtest/gtest.h>

#include "gtv/model/trace_builder.h"

namespace gtv::ui {
namespace {

// Two host threads of process 10 (depths 3 and 1), two streams of GPU 0 and one of GPU 1.
std::vector<LaneDesc> lanes() {
  return {{host_lane_key(10, 1), "main", 3},
          {host_lane_key(10, 2), "worker", 1},
          {gpu_lane_key(0, 7), "stream 7", 1},
          {gpu_lane_key(0, 13), "stream 13", 2},
          {gpu_lane_key(1, 7), "stream 7", 1}};
}
std::vector<std::string> labels() { return {"Process 10", "Process 10", "GPU 0", "GPU 0", "GPU 1"}; }
const LayoutOptions kOptions{20, 30, 4};

TEST(LaneLayout, HeadersThenLanesWithDepthHeights) {
  const LaneLayout layout(lanes(), labels(), {}, kOptions);
  const auto& rows = layout.rows();
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].kind, RowKind::ProcessHeader);
  EXPECT_EQ(rows[0].label, "Process 10");
  EXPECT_EQ(rows[1].kind, RowKind::Lane);
  EXPECT_DOUBLE_EQ(rows[1].top_px, 30);
  EXPECT_DOUBLE_EQ(rows[1].height_px, 3 * 20 + 4);
  EXPECT_DOUBLE_EQ(rows[2].top_px, 30 + 64);
  EXPECT_EQ(rows[3].kind, RowKind::DeviceHeader);
  EXPECT_EQ(rows[3].label, "GPU 0");
  EXPECT_DOUBLE_EQ(rows[3].top_px, 30 + 64 + 24);
  EXPECT_EQ(rows[6].kind, RowKind::DeviceHeader);
  EXPECT_EQ(rows[7].lane, 4u);
  // 3 headers, lanes of 3+1+1+2+1 depth rows, 5 gaps.
  EXPECT_DOUBLE_EQ(layout.total_height_px(), 3 * 30 + 8 * 20 + 5 * 4);
}

TEST(LaneLayout, RowAndDepthUnderAPoint) {
  const LaneLayout layout(lanes(), labels(), {}, kOptions);
  EXPECT_EQ(layout.row_at(-1), -1);
  EXPECT_EQ(layout.row_at(0), 0);
  EXPECT_EQ(layout.row_at(29.9), 0);
  EXPECT_EQ(layout.row_at(30), 1);
  EXPECT_EQ(layout.depth_at(1, 30), 0);
  EXPECT_EQ(layout.depth_at(1, 30 + 45), 2);
  EXPECT_EQ(layout.depth_at(1, 30 + 62), -1);  // the gap under the lane
  EXPECT_EQ(layout.depth_at(0, 10), -1);       // a header
  EXPECT_DOUBLE_EQ(layout.depth_top_px(1, 2), 70);
  EXPECT_EQ(layout.row_at(layout.total_height_px()), -1);
  EXPECT_EQ(layout.row_of_lane(3), 5);
}

TEST(LaneLayout, CollapsedHiddenAndGroupCollapsed) {
  LaneViewState state;
  state.collapsed_lanes.insert(0);
  state.hidden_lanes.insert(1);
  state.collapsed_groups.insert({LaneKind::GpuStream, 0});
  const LaneLayout layout(lanes(), labels(), state, kOptions);
  const auto& rows = layout.rows();
  ASSERT_EQ(rows.size(), 5u);  // process header, lane 0, GPU 0 header (collapsed), GPU 1 header, lane 4
  EXPECT_TRUE(rows[1].collapsed);
  EXPECT_EQ(rows[1].depth_rows, 1);
  EXPECT_DOUBLE_EQ(rows[1].height_px, 24);
  EXPECT_TRUE(rows[2].collapsed);
  EXPECT_EQ(rows[2].kind, RowKind::DeviceHeader);
  EXPECT_EQ(layout.row_of_lane(1), -1);
  EXPECT_EQ(layout.row_of_lane(2), -1);
  EXPECT_EQ(layout.row_of_lane(4), 4);
  EXPECT_DOUBLE_EQ(rows[4].top_px, 30 + 24 + 30 + 30);
}

TEST(LaneLayout, FromATrace) {
  TraceBuilder b;
  b.lane(host_lane_key(5, 6));
  b.lane(gpu_lane_key(1, 7));
  b.add_device({1, "NVIDIA H200", 0, 9, 0, 132});
  b.process(5).name = "python";
  Trace t = std::move(b.build().value());
  const auto labels_of = group_labels(t);
  ASSERT_EQ(labels_of.size(), 2u);
  EXPECT_EQ(labels_of[0], "Process 5  python");
  EXPECT_EQ(labels_of[1], "GPU 1  NVIDIA H200");
  EXPECT_EQ(lane_descs(t)[1].name, t.lane(1).name);
}

}  // namespace
}  // namespace gtv::ui
