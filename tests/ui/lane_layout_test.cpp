#include "gtv/ui/lane_layout.h"

#include <gtest/gtest.h>

#include "gtv/model/trace_builder.h"
#include "gtv/ui/event_lane_row.h"

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
constexpr std::size_t kLanes = 5;

// A row that is not an event lane.
RowDesc other(GroupKey group, RowPlace place, std::string id, std::string label, int depth_rows) {
  RowDesc d;
  d.group = group;
  d.place = place;
  d.id = std::move(id);
  d.label = std::move(label);
  d.depth_rows = depth_rows;
  return d;
}

// The rows of event lanes (group_labels[i] heads lane i's group), then the other rows, as make_timeline_rows orders
// them.
LaneLayout layout_of(const std::vector<LaneDesc>& lanes, const std::vector<std::string>& group_labels,
                     const LaneViewState& state, const std::vector<RowDesc>& others = {}) {
  std::vector<RowDesc> rows;
  for (LaneIndex i = 0; i < lanes.size(); ++i) rows.push_back(event_lane_row_desc(i, lanes[i], group_labels[i]));
  rows.insert(rows.end(), others.begin(), others.end());
  return {rows, state, kOptions};
}
std::string id_of(LaneIndex lane) { return event_lane_row_id(lanes()[lane].key); }

TEST(LaneLayout, HeadersThenLanesWithDepthHeights) {
  const LaneLayout layout = layout_of(lanes(), labels(), {});
  const auto& rows = layout.rows();
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].kind, RowKind::ProcessHeader);
  EXPECT_EQ(rows[0].label, "Process 10");
  EXPECT_EQ(rows[1].kind, RowKind::Row);
  EXPECT_EQ(rows[1].lane, std::optional<LaneIndex>(0));
  EXPECT_TRUE(rows[1].can_collapse);   // three depth rows
  EXPECT_FALSE(rows[2].can_collapse);  // one
  EXPECT_DOUBLE_EQ(rows[1].top_px, 30);
  EXPECT_DOUBLE_EQ(rows[1].height_px, 3 * 20 + 4);
  EXPECT_DOUBLE_EQ(rows[2].top_px, 30 + 64);
  EXPECT_EQ(rows[3].kind, RowKind::DeviceHeader);
  EXPECT_EQ(rows[3].label, "GPU 0");
  EXPECT_DOUBLE_EQ(rows[3].top_px, 30 + 64 + 24);
  EXPECT_EQ(rows[6].kind, RowKind::DeviceHeader);
  EXPECT_EQ(rows[7].lane, std::optional<LaneIndex>(4));
  EXPECT_EQ(rows[7].row, 4u);
  // 3 headers, lanes of 3+1+1+2+1 depth rows, 5 gaps.
  EXPECT_DOUBLE_EQ(layout.total_height_px(), 3 * 30 + 8 * 20 + 5 * 4);
}

TEST(LaneLayout, RowAndDepthUnderAPoint) {
  const LaneLayout layout = layout_of(lanes(), labels(), {});
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
  state.collapsed_rows.insert(id_of(0));
  state.hidden_rows.insert(id_of(1));
  state.collapsed_groups.insert({LaneKind::GpuStream, 0});
  const LaneLayout layout = layout_of(lanes(), labels(), state);
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

TEST(LaneLayout, OtherRowsGoToTheTopOrBottomOfTheirGroup) {
  const std::vector<RowDesc> others = {
      other({LaneKind::GpuStream, 0}, RowPlace::Bottom, "counter 0", "memory", 2),
      other({LaneKind::HostThread, 10}, RowPlace::Top, "ranges 10/1", "recorded ranges", 3)};
  const LaneLayout layout = layout_of(lanes(), labels(), {}, others);
  const auto& rows = layout.rows();
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[0].kind, RowKind::ProcessHeader);
  EXPECT_EQ(rows[1].kind, RowKind::Row);  // the ranges above the process's threads
  EXPECT_EQ(rows[1].row, kLanes + 1);
  EXPECT_FALSE(rows[1].lane.has_value());
  EXPECT_EQ(rows[1].label, "recorded ranges");
  EXPECT_DOUBLE_EQ(rows[1].height_px, 3 * 20 + 4);
  EXPECT_EQ(rows[2].lane, std::optional<LaneIndex>(0));
  EXPECT_EQ(rows[4].kind, RowKind::DeviceHeader);
  EXPECT_EQ(rows[6].lane, std::optional<LaneIndex>(3));
  EXPECT_EQ(rows[7].kind, RowKind::Row);  // the counter under GPU 0's streams
  EXPECT_EQ(rows[7].row, kLanes);
  EXPECT_EQ(rows[8].kind, RowKind::DeviceHeader);
  // A point in a row of ranges has depth rows like a lane.
  EXPECT_EQ(layout.depth_at(1, rows[1].top_px + 2 * 20 + 1), 2);
}

TEST(LaneLayout, OtherRowsHideAndFollowTheirGroup) {
  const std::vector<RowDesc> others = {
      other({LaneKind::GpuStream, 0}, RowPlace::Bottom, "counter 0", "memory", 2),
      other({LaneKind::HostThread, 77}, RowPlace::Top, "ranges 77/1", "recorded ranges", 1)};
  LaneViewState state;
  state.hidden_rows.insert("counter 0");
  const LaneLayout layout = layout_of(lanes(), labels(), state, others);
  for (const LaneRow& r : layout.rows()) EXPECT_NE(r.row, kLanes);
  // A group that only an other row names gets its own header, after the groups of lanes.
  const auto& rows = layout.rows();
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[rows.size() - 2].kind, RowKind::ProcessHeader);
  EXPECT_EQ(rows[rows.size() - 2].label, "Process 77");
  EXPECT_EQ(rows.back().kind, RowKind::Row);
  EXPECT_EQ(rows.back().row, kLanes + 1);
  // Its one row hidden, that group has nothing to head: no header either.
  state.hidden_rows.insert("ranges 77/1");
  const LaneLayout headless = layout_of(lanes(), labels(), state, others);
  for (const LaneRow& r : headless.rows()) EXPECT_NE(r.label, "Process 77");
  EXPECT_EQ(headless.rows().size(), rows.size() - 2);
  state.hidden_rows.clear();
  state.collapsed_groups.insert({LaneKind::GpuStream, 0});
  const LaneLayout collapsed = layout_of(lanes(), labels(), state, others);
  for (const LaneRow& r : collapsed.rows()) EXPECT_NE(r.row, kLanes);
}

TEST(LaneLayout, LanesAndOtherRowsCollapseAndHideByOneIdSet) {
  const std::vector<RowDesc> others = {
      other({LaneKind::HostThread, 10}, RowPlace::Top, "ranges 10/1", "recorded ranges", 3)};
  LaneViewState state;
  state.hidden_rows = {id_of(2), "ranges 10/1"};
  const LaneLayout hidden = layout_of(lanes(), labels(), state, others);
  for (const LaneRow& r : hidden.rows()) EXPECT_TRUE(r.row != kLanes && r.lane != std::optional<LaneIndex>(2));
  EXPECT_EQ(hidden.rows().size(), 7u);  // 8 rows and the ranges, less the two hidden
  EXPECT_EQ(hidden.row_of_lane(2), -1);
  // Collapse goes by the same ids; a row that cannot collapse (the ranges) keeps its depth rows.
  state.hidden_rows.clear();
  state.collapsed_rows = {id_of(0), id_of(3), "ranges 10/1"};
  const LaneLayout collapsed = layout_of(lanes(), labels(), state, others);
  const auto& rows = collapsed.rows();
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[1].row, kLanes);
  EXPECT_FALSE(rows[1].collapsed);
  EXPECT_EQ(rows[1].depth_rows, 3);
  EXPECT_TRUE(rows[static_cast<std::size_t>(collapsed.row_of_lane(0))].collapsed);
  EXPECT_EQ(rows[static_cast<std::size_t>(collapsed.row_of_lane(0))].depth_rows, 1);
  EXPECT_EQ(rows[static_cast<std::size_t>(collapsed.row_of_lane(3))].depth_rows, 1);
  // Shown depths go by id too.
  state.collapsed_rows.clear();
  state.shown_depths = {{id_of(0), 2}, {"ranges 10/1", 1}};
  const LaneLayout figure = layout_of(lanes(), labels(), state, others);
  EXPECT_EQ(figure.rows()[1].depth_rows, 1);
  EXPECT_EQ(figure.rows()[static_cast<std::size_t>(figure.row_of_lane(0))].depth_rows, 2);
}

TEST(LaneLayout, ProfilerBookkeepingGroupsComeLast) {
  auto descs = lanes();
  descs.insert(descs.begin(), {host_lane_key(-1, 0), "thread 0", 1, true});
  auto group_names = labels();
  group_names.insert(group_names.begin(), "Process -1");
  const LaneLayout layout = layout_of(descs, group_names, {});
  const auto& rows = layout.rows();
  EXPECT_EQ(rows[0].label, "Process 10");
  EXPECT_EQ(rows[rows.size() - 2].label, "Process -1");
  EXPECT_EQ(rows.back().lane, std::optional<LaneIndex>(0));
}

TEST(LaneLayout, KinetoPseudoProcessesAreBookkeeping) {
  TraceBuilder b;
  const LaneIndex work = b.lane(host_lane_key(5, 5));
  const LaneIndex spans = b.lane(host_lane_key(1000000000000, 1000000000001));
  const LaneIndex overhead = b.lane(host_lane_key(-1, 0));
  Event op;
  op.kind = EventKind::CpuOp;
  op.duration_ns = 10;
  op.name = b.intern("aten::mm");
  b.add_event(work, op);
  Event span;
  span.kind = EventKind::Other;
  span.duration_ns = 100;
  span.name = b.intern("PyTorch Profiler (0)");
  span.detail = b.intern("Trace");
  b.add_event(spans, span);
  Event buffer;
  buffer.kind = EventKind::Overhead;
  buffer.duration_ns = 5;
  buffer.name = b.intern("Activity Buffer Request");
  b.add_event(overhead, buffer);
  const Trace t = std::move(b.build().value());
  for (const LaneDesc& d : lane_descs(t)) EXPECT_EQ(d.bookkeeping, d.key.pid != 5) << d.key.pid;
  for (const std::string& label : group_labels(t))
    EXPECT_EQ(label.find("profiler's own records") != std::string::npos, label.find("Process 5") == std::string::npos)
        << label;
}

TEST(LabelColumn, KeepsItsWidthWithinTheMinimumAndHalfTheView) {
  EXPECT_DOUBLE_EQ(label_column_px(kDefaultLabelColumnPx, 1600, 1.0), 240);
  EXPECT_DOUBLE_EQ(label_column_px(400, 1600, 1.0), 400);
  EXPECT_DOUBLE_EQ(label_column_px(400, 1600, 1.5), 600);  // the presentation font widens it
  EXPECT_DOUBLE_EQ(label_column_px(20, 1600, 1.0), kMinLabelColumnPx);
  EXPECT_DOUBLE_EQ(label_column_px(1500, 1600, 1.0), 800);              // the time axis keeps half the view
  EXPECT_DOUBLE_EQ(label_column_px(240, 200, 1.0), kMinLabelColumnPx);  // a tiny view: the minimum wins
}

// Bands as a compare panel of two GPUs wants them, as its rows ask (band_rows.h): 4 bracket rows above the lanes
// (rows 0), under them the warm-up labels (1), the strip (2), 2 idle rows (3); each keeps its room by its rank.
struct PanelBands {
  std::vector<BandRequest> bands;
  double min_lanes_px = 44;
  double wanted_lanes_px = 0;
  [[nodiscard]] double full_px() const { return full_band_px(bands); }
};
PanelBands panel_bands(int idle_rows = 2) {
  PanelBands w;
  w.bands.push_back({0, RowPlace::AboveLanes, {4, 18, 6}, 3, true});
  w.bands.push_back({1, RowPlace::BelowLanes, {1, 40, 0}, 4, false});
  w.bands.push_back({2, RowPlace::BelowLanes, {1, 36, 0}, 0, false});
  w.bands.push_back({3, RowPlace::BelowLanes, {idle_rows, 15, 0}, 1, false});
  return w;
}

// The fitted bands by the row they draw: depth rows given (0: left out) and the height of one.
struct Fitted {
  BandLayout layout;
  [[nodiscard]] const BandRow* band(std::size_t row) const {
    for (const BandRow& b : layout.rows)
      if (b.row == row) return &b;
    return nullptr;
  }
  [[nodiscard]] int bracket_rows() const { return band(0) ? band(0)->depth_rows : 0; }
  [[nodiscard]] double px(std::size_t row) const { return band(row) ? band(row)->depth_px : 0; }
};
Fitted fit(const PanelBands& w, double h) { return {fit_bands(w.bands, w.min_lanes_px, w.wanted_lanes_px, h)}; }

TEST(FitBands, EveryBandWholeWhereThereIsRoom) {
  const PanelBands w = panel_bands();
  EXPECT_DOUBLE_EQ(w.full_px(), 4 * 18 + 6 + 40 + 36 + 2 * 15);
  const Fitted b = fit(w, 600);
  EXPECT_EQ(b.bracket_rows(), 4);
  EXPECT_DOUBLE_EQ(b.layout.above_px, 4 * 18 + 6);
  EXPECT_DOUBLE_EQ(b.px(1), 40);
  EXPECT_DOUBLE_EQ(b.px(2), 36);
  EXPECT_DOUBLE_EQ(b.px(3), 15);
  EXPECT_DOUBLE_EQ(b.layout.below_px, 40 + 36 + 30);
  // Stacked in row order: under the lanes the warm-up labels, the strip, the idle rows.
  EXPECT_DOUBLE_EQ(b.band(1)->top_px, 0);
  EXPECT_DOUBLE_EQ(b.band(2)->top_px, 40);
  EXPECT_DOUBLE_EQ(b.band(3)->top_px, 76);
  EXPECT_DOUBLE_EQ(b.band(3)->height_px, 30);
  // Exactly the lanes' minimum and every band: still whole.
  EXPECT_EQ(fit(w, w.min_lanes_px + w.full_px()).bracket_rows(), 4);
}

TEST(FitBands, ShortAxesKeepTheLanesAndDropBandsInOrder) {
  const PanelBands w = panel_bands();
  // One pixel short of everything: the warm-up labels go first.
  Fitted b = fit(w, w.min_lanes_px + w.full_px() - 1);
  EXPECT_DOUBLE_EQ(b.px(1), 0);
  EXPECT_EQ(b.bracket_rows(), 4);
  EXPECT_DOUBLE_EQ(b.px(2), 36);
  EXPECT_DOUBLE_EQ(b.band(2)->top_px, 0);  // the strip moves up to the lanes
  // Room for the lanes, the strip, the idle rows and one bracket row.
  b = fit(w, 44 + 36 + 30 + 18 + 6);
  EXPECT_DOUBLE_EQ(b.px(2), 36);
  EXPECT_DOUBLE_EQ(b.px(3), 15);
  EXPECT_EQ(b.bracket_rows(), 1);
  EXPECT_DOUBLE_EQ(b.layout.above_px, 18 + 6);
  EXPECT_DOUBLE_EQ(b.px(1), 0);
  // Room for the lanes and the strip only.
  b = fit(w, 44 + 36 + 10);
  EXPECT_DOUBLE_EQ(b.px(2), 36);
  EXPECT_DOUBLE_EQ(b.px(3), 0);
  EXPECT_EQ(b.bracket_rows(), 0);
  EXPECT_DOUBLE_EQ(b.layout.above_px, 0);
  // Not even that: the lanes alone.
  b = fit(w, 50);
  EXPECT_DOUBLE_EQ(b.layout.above_px + b.layout.below_px, 0);
  EXPECT_TRUE(b.layout.rows.empty());
}

TEST(FitBands, WantedLanesComeBeforeBracketsWhereTheyFitWhole) {
  PanelBands w = panel_bands();
  w.wanted_lanes_px = 140;
  // 300 px: the strip and idle rows (66), the wanted lanes (140), then 94 px: 4 bracket rows (78), no warm-up labels.
  Fitted b = fit(w, 300);
  EXPECT_EQ(b.bracket_rows(), 4);
  EXPECT_DOUBLE_EQ(b.px(1), 0);
  // 250 px: 44 px left after the lanes: 2 bracket rows.
  b = fit(w, 250);
  EXPECT_EQ(b.bracket_rows(), 2);
  EXPECT_GE(250 - b.layout.above_px - b.layout.below_px, 140);
  // Without the wish, the same height gives the brackets and the warm-up labels their room first.
  w.wanted_lanes_px = 0;
  EXPECT_EQ(fit(w, 250).bracket_rows(), 4);
  // A wish that cannot be met whole (under the strip and idle rows the lanes have 184 px at most) is not kept.
  w.wanted_lanes_px = 200;
  b = fit(w, 250);
  EXPECT_EQ(b.bracket_rows(), 4);
  EXPECT_DOUBLE_EQ(b.px(2), 36);
}

TEST(FitBands, NoBandOverlapsTheLanesAtAnyHeight) {
  for (int idle_rows : {0, 1, 2, 8}) {
    const PanelBands w = panel_bands(idle_rows);
    for (double h = 0; h <= 400; h += 1) {
      const Fitted b = fit(w, h);
      const double lanes_px = h - b.layout.above_px - b.layout.below_px;
      EXPECT_GE(lanes_px, std::min(h, w.min_lanes_px)) << "height " << h << ", idle rows " << idle_rows;
      EXPECT_TRUE(b.bracket_rows() == 0 || b.layout.above_px == b.bracket_rows() * 18.0 + 6);
    }
  }
}

// A band is no row of a group: the layout leaves it to fit_bands.
TEST(LaneLayout, BandsAreNotLaidOutAmongTheLanes) {
  RowDesc lane;
  lane.group = {LaneKind::GpuStream, 0};
  lane.place = RowPlace::Lanes;
  lane.id = "lane";
  lane.lane = 0;
  RowDesc band;
  band.place = RowPlace::BelowLanes;
  band.id = "band";
  const LaneLayout layout({lane, band}, LaneViewState{}, LayoutOptions{});
  ASSERT_EQ(layout.rows().size(), 2u);  // the GPU's header and its lane
  for (const LaneRow& r : layout.rows()) EXPECT_NE(r.row, 1u);
}

}  // namespace
}  // namespace gtv::ui
