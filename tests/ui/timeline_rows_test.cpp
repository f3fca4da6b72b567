#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <tuple>

#include "../unit/analysis/trace_helpers.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "gtv/ui/communication_row.h"
#include "gtv/ui/counter_row.h"
#include "gtv/ui/critical_path_row.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/event_text.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/range_row.h"
#include "gtv/ui/timeline_row.h"
#include "gtv/ui/work_owner.h"

namespace gtv::ui {
namespace {

Range range(const char* name, RangeKind kind, TimeNs start_ns, TimeNs end_ns) {
  Range r;
  r.name = name;
  r.kind = kind;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.pid = 1;
  r.tid = 2;
  return r;
}

TEST(RangeDepths, NestedRangesStackAndSiblingsShareADepth) {
  const std::vector<Range> ranges = {
      range("scenario", RangeKind::Scenario, 0, 100),       range("iteration 0", RangeKind::Iteration, 10, 40),
      range("model 0 forward", RangeKind::Forward, 10, 20), range("model 1 forward", RangeKind::Forward, 20, 40),
      range("iteration 1", RangeKind::Iteration, 40, 70),   range("overlapping", RangeKind::User, 60, 90)};
  std::vector<const Range*> sorted;
  for (const Range& r : ranges) sorted.push_back(&r);
  EXPECT_EQ(range_depths(sorted), (std::vector<int>{0, 1, 2, 2, 1, 2}));
}

TEST(RangeRow, TooltipNamesTheRangeWithExactTimes) {
  const std::vector<Range> ranges = {range("timed loop", RangeKind::Phase, 1000, 5000),
                                     range("model 1 forward", RangeKind::Forward, 2000, 3000)};
  const RangeRow row(1, 2, {&ranges[0], &ranges[1]}, nullptr);
  EXPECT_EQ(row.desc().depth_rows, 2);
  EXPECT_EQ(row.desc().group, (GroupKey{LaneKind::HostThread, 1}));
  EXPECT_EQ(row.desc().place, RowPlace::Top);
  const QString tip = row.tooltip_at(2500, 1, 1, 1000);
  EXPECT_TRUE(tip.startsWith("model 1 forward\nmodel forward range")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("from 1.000 us to 2.000 us (1.000 us)")) << tip.toStdString();
  EXPECT_TRUE(row.tooltip_at(2500, 0, 1, 1000).startsWith("timed loop"));
  EXPECT_TRUE(row.tooltip_at(6000, 0, 1, 1000).isEmpty());
}

// The recorded structure of the `sequential` scenario: one range row with its phases, iterations and the three
// models' forwards, each forward in the colour its kernels have when coloured by model.
TEST(TimelineRows, SequentialRecordingShowsItsRangesInTheirModelsColours) {
  auto trace = io::read_trace(std::string(GTV_SOURCE_DIR) + "/resources/traces/h200x2/sequential.json.gz");
  ASSERT_TRUE(trace.ok());
  const Trace& t = *trace;
  OverlayData overlays;
  overlays.owners = std::make_shared<const WorkOwners>(work_owners(t));
  const WorkOwners& owners = *overlays.owners;
  const TimelineRows rows = make_timeline_rows(t, overlays);
  const RangeRow* ranges = nullptr;
  std::size_t counters = 0;
  for (const auto& row : rows) {
    if (const auto* r = dynamic_cast<const RangeRow*>(row.get())) ranges = r;
    if (dynamic_cast<const CounterRow*>(row.get())) ++counters;
  }
  ASSERT_NE(ranges, nullptr);
  EXPECT_EQ(ranges->placed().size(), t.ranges().size());
  std::set<std::string> names;
  for (const PlacedRange& p : ranges->placed()) {
    names.insert(p.range->name);
    if (p.range->kind != RangeKind::Forward) continue;
    std::size_t owner = owners.names.size();
    for (std::size_t i = 0; i < owners.names.size(); ++i)
      if (owners.names[i] == p.range->name) owner = i;
    ASSERT_LT(owner, owners.names.size()) << p.range->name;
    EXPECT_EQ(p.color, owners.colors[owner]) << p.range->name;
  }
  for (const char* expected :
       {"sequential", "build models", "warm-up", "timed loop", "model 0 forward", "model 1 forward", "model 2 forward"})
    EXPECT_EQ(names.count(expected), 1u) << expected;
  // Memory counters: GPU 0's and GPU 1's device memory, the process's pinned memory.
  EXPECT_EQ(counters, t.counters().size());
  // Every lane first, as an event lane row, in the trace's order.
  ASSERT_GT(rows.size(), t.lanes().size());
  for (LaneIndex i = 0; i < t.lanes().size(); ++i) EXPECT_EQ(row_descs(rows)[i].lane, std::optional<LaneIndex>(i));
  std::set<GroupKey> groups;
  for (const RowDesc& d : row_descs(rows))
    if (!d.lane) groups.insert(d.group);
  EXPECT_EQ(groups.count({LaneKind::GpuStream, 0}), 1u);
  EXPECT_EQ(groups.count({LaneKind::GpuStream, 1}), 1u);
}

CounterSeries series() {
  CounterSeries s;
  s.pid = 0;
  s.name = "device memory allocated (bytes)";
  s.samples = {{100, 10}, {150, 30}, {160, 20}, {400, 5}};
  return s;
}

TEST(CounterRow, ValueInForceAndColumnMaxima) {
  const CounterSeries s = series();
  EXPECT_FALSE(counter_sample_at(s, 99).has_value());
  EXPECT_EQ(counter_sample_at(s, 100)->value, 10);
  EXPECT_EQ(counter_sample_at(s, 399)->value, 20);
  // Four columns of 100 ns over [0, 400): nothing yet, then 10 rising to 30 within the column, then 20 in force.
  const std::vector<double> high = counter_column_max(s, {0, 400}, 4);
  ASSERT_EQ(high.size(), 4u);
  EXPECT_TRUE(std::isnan(high[0]));
  EXPECT_EQ(high[1], 30);
  EXPECT_EQ(high[2], 20);
  EXPECT_EQ(high[3], 20);
  EXPECT_EQ(counter_value_text(s, 4096), "4.10 kB (4,096 bytes)");
  const CounterRow row(s, {LaneKind::GpuStream, 0});
  EXPECT_EQ(row.desc().place, RowPlace::Bottom);
  EXPECT_TRUE(row.tooltip_at(155, 0, 1, 100).contains("30 bytes")) << row.tooltip_at(155, 0, 1, 100).toStdString();
}

// A series that reads 0 throughout a window shows nothing there (a figure leaves its row out).
TEST(CounterRow, ZeroThroughoutTheWindowIsNoContent) {
  CounterSeries s;
  s.name = "reserved (bytes)";
  s.samples = {{0, 0}, {100, 5}, {200, 0}};
  const CounterRow row(s, {LaneKind::GpuStream, 0});
  EXPECT_FALSE(row.has_content_in(0, 50));
  EXPECT_TRUE(row.has_content_in(50, 150));   // the sample at 100
  EXPECT_TRUE(row.has_content_in(150, 160));  // 5 in force
  EXPECT_FALSE(row.has_content_in(250, 300));
}

// On one GPU the busy strip counts its streams: the 1x H200 `streams` loop runs up to its 3 streams at once (4 streams
// have work: the default stream ran the warm-up), the `sequential` loop one at a time on its one stream.
TEST(BusyStrip, OnOneGpuItCountsTheStreamsBusy) {
  const std::string dir = std::string(GTV_SOURCE_DIR) + "/resources/traces/h200x1/";
  for (const auto& [name, most, with_work] :
       {std::tuple<std::string, int, int>{"streams", 3, 4}, std::tuple<std::string, int, int>{"sequential", 1, 1}}) {
    const Expected<Trace> t = io::read_trace(dir + name + ".json.gz");
    ASSERT_TRUE(t.ok()) << name;
    const DocumentAnalysis analysis = analyse_document(*t);
    const OverlayData& o = analysis.overlays;
    EXPECT_EQ(o.strip_label, "GPU 0 streams busy") << name;
    EXPECT_EQ(o.strip_unit, "streams of GPU 0") << name;
    int highest = 0;
    for (const Step& s : o.busy_gpus) highest = std::max(highest, s.value);
    EXPECT_EQ(highest, most) << name;
    EXPECT_EQ(o.gpu_count, with_work) << name << ": streams with work";
  }
}

// One thread launches two 100 us kernels back to back and synchronizes: the whole trace's critical path runs through
// the kernels, its row sits in a group of its own under every lane, and a stretch's click selects its kernel.
TEST(CriticalPathRow, TilesTheRegionUnderTheLanesAndSelectsItsEvents) {
  using analysis::testing::host_call;
  using analysis::testing::kernel;
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 10'000, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm_a", 15'000, 100'000, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 12'000, 8'000, EventKind::Runtime, 2);
  kernel(b, 0, 7, "gemm_b", 115'000, 100'000, 2);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 22'000, 198'000, EventKind::Runtime);
  const Trace t = analysis::testing::build(b);
  const DocumentAnalysis analysis = analyse_document(t);
  const CriticalPathSpans& path = analysis.overlays.critical_path;
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.stretches.front().start_ns, t.start_ns());
  EXPECT_EQ(path.stretches.back().end_ns, t.end_ns());
  for (std::size_t i = 1; i < path.stretches.size(); ++i)
    EXPECT_EQ(path.stretches[i].start_ns, path.stretches[i - 1].end_ns) << "stretch " << i;

  OverlayData overlays;
  overlays.communication = analysis.overlays.communication;
  overlays.critical_path = path;
  const TimelineRows rows = make_timeline_rows(t, overlays);
  const TimelineRow* row = nullptr;
  for (const auto& r : rows)
    if (r->desc().id == "critical path") row = r.get();
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->desc().label, "critical path (" + path.region + ")");

  // The kernels' stretches select them; the tooltip names what and where, with exact times.
  const auto gpu_lane = t.find_lane(gpu_lane_key(0, 7));
  ASSERT_TRUE(gpu_lane.has_value());
  const auto first = row->event_at(60'000, 0, 1);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, (EventRef{*gpu_lane, 0}));
  const auto second = row->event_at(160'000, 0, 1);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(*second, (EventRef{*gpu_lane, 1}));
  const std::string tip = row->tooltip_at(60'000, 0, 1, 0).toStdString();
  EXPECT_EQ(tip.rfind("critical path of " + path.region +
                          ": kernel (GPU 0 / stream 7)\n100.000 us, from 15.000 us "
                          "to 115.000 us",
                      0),
            0u)
      << tip;

  // Its group comes after every lane's, under its own header.
  const LaneLayout layout(row_descs(rows), LaneViewState{}, LayoutOptions{});
  const auto& laid = layout.rows();
  ASSERT_GE(laid.size(), 2u);
  EXPECT_EQ(laid.back().kind, RowKind::Row);
  EXPECT_EQ(rows.at(laid.back().row).get(), row);
  EXPECT_EQ(laid.back().group, kCriticalPathGroup);
  EXPECT_EQ(laid[laid.size() - 2].label, "Critical path");
}

}  // namespace

// A GEMM on stream 7 [0, 300) us and an all-reduce on stream 20 [200, 500) us: the GPU's communication row shows
// 100 us beside computation and 200 us exposed, each span with its exact times in the tooltip.
// Zoomed out, a pixel of the critical path takes the kind with the most time in it, not its longest stretch: one
// 40 ns stretch of a kernel against three 30 ns stretches of host launching is the launching's pixel.
TEST(CriticalPathRow, APixelShowsTheKindWithMostTime) {
  CriticalPathSpans path;
  path.region = "timed loop";
  const int kernel = 0, launching = 4;
  path.stretches = {{0, 40, kernel, std::nullopt, -1},
                    {40, 70, launching, std::nullopt, -1},
                    {70, 100, launching, std::nullopt, -1},
                    {100, 130, launching, std::nullopt, -1}};
  const CriticalPathRow row(path);
  QImage image(1, 8, QImage::Format_RGB32);
  image.fill(Qt::black);
  QPainter painter(&image);
  const TimeMapping map({0, 130}, 1);
  const Theme theme;
  RowPaint paint;
  paint.painter = &painter;
  paint.map = &map;
  paint.theme = &theme;
  paint.rect = QRectF(0, 0, 1, 8);
  row.draw(paint);
  painter.end();
  EXPECT_EQ(image.pixel(0, 4) & 0xffffffu, critical_segment_color(launching));
  const std::vector<LegendGroup> legend = row.legend();
  ASSERT_EQ(legend.size(), 1u);
  EXPECT_NE(legend[0].title.find("a pixel: the kind with most time"), std::string::npos);
}

TEST(CommunicationRow, SpansBesideComputationAndExposedFromTheReport) {
  TraceBuilder b;
  auto kernel = [&](std::int64_t stream, std::string_view name, TimeNs start_us, TimeNs dur_us) {
    Event e;
    e.name = b.intern(name);
    e.start_ns = start_us * 1000;
    e.duration_ns = dur_us * 1000;
    e.kind = EventKind::Kernel;
    b.add_kernel(b.lane(gpu_lane_key(0, stream)), e, KernelDetail{});
  };
  kernel(7, "sm90_xmma_gemm_f32f32", 0, 300);
  kernel(20, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 200, 300);
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok());
  const DocumentAnalysis analysis = analyse_document(*t);
  ASSERT_EQ(analysis.overlays.communication.size(), 1u);
  const CommunicationSpans& spans = analysis.overlays.communication[0];
  EXPECT_EQ(spans.overlap, (std::vector<analysis::Interval>{{200'000, 300'000}}));
  EXPECT_EQ(spans.exposed, (std::vector<analysis::Interval>{{300'000, 500'000}}));
  OverlayData overlays;
  overlays.communication = analysis.overlays.communication;
  const TimelineRows rows = make_timeline_rows(*t, overlays);
  const TimelineRow* row = nullptr;
  for (const auto& r : rows)
    if (r->desc().id == "communication 0") row = r.get();
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->desc().group, (GroupKey{LaneKind::GpuStream, 0}));
  EXPECT_EQ(row->desc().place, RowPlace::Bottom);
  const std::string exposed = row->tooltip_at(400'000, 0, 1, 0).toStdString();
  EXPECT_EQ(exposed.rfind("communication exposed: no computation kernel beside it on GPU 0\n200.000 us, from "
                          "300.000 us to 500.000 us",
                          0),
            0u)
      << exposed;
  EXPECT_EQ(row->tooltip_at(250'000, 0, 1, 0).toStdString().rfind("communication beside computation on GPU 0", 0), 0u);
  EXPECT_TRUE(row->tooltip_at(100'000, 0, 1, 0).isEmpty());
}

namespace {

// Thread 1685 of process 1234: "step" [0, 1000) us over "aten::mm" [100, 300) us; then 200 events of 1 us, 4 us
// apart, from 2 ms. Stream 7 of GPU 0: one kernel [150, 250) us. With another_thread, thread 1 of process 1 too,
// whose lane comes first.
Trace lanes_trace(bool another_thread = false) {
  using analysis::testing::host_call;
  using analysis::testing::kernel;
  TraceBuilder b;
  if (another_thread) host_call(b, 1, 1, "main", 0, 10'000, EventKind::CpuOp);
  host_call(b, 1234, 1685, "step", 0, 1'000'000, EventKind::CpuOp);
  host_call(b, 1234, 1685, "aten::mm", 100'000, 200'000, EventKind::CpuOp);
  for (TimeNs i = 0; i < 200; ++i) host_call(b, 1234, 1685, "tiny", 2'000'000 + i * 4'000, 1'000, EventKind::CpuOp);
  kernel(b, 0, 7, "gemm", 150'000, 100'000);
  return analysis::testing::build(b);
}

const EventLaneRow* lane_row(const TimelineRows& rows, const std::string& id) {
  for (const auto& row : rows)
    if (const auto* lane = dynamic_cast<const EventLaneRow*>(row.get()); lane && row->desc().id == id) return lane;
  return nullptr;
}

}  // namespace

TEST(EventLaneRow, DescSaysItsGroupPlaceAndAnIdFromTheLaneKey) {
  const Trace t = lanes_trace();
  const TimelineRows rows = make_timeline_rows(t);
  const EventLaneRow* host = lane_row(rows, "lane:host:1234:1685");
  const EventLaneRow* gpu = lane_row(rows, "lane:gpu:0:7");
  ASSERT_NE(host, nullptr);
  ASSERT_NE(gpu, nullptr);
  const RowDesc d = host->desc();
  EXPECT_EQ(d.group, (GroupKey{LaneKind::HostThread, 1234}));
  EXPECT_EQ(d.place, RowPlace::Lanes);
  EXPECT_EQ(d.label, lane_descs(t)[host->lane_index()].name);
  EXPECT_EQ(d.depth_rows, 2);
  EXPECT_TRUE(d.can_collapse);
  EXPECT_EQ(d.group_label, group_labels(t)[host->lane_index()]);
  EXPECT_EQ(d.lane, std::optional<LaneIndex>(host->lane_index()));
  EXPECT_FALSE(gpu->desc().can_collapse);  // one kernel: one depth row
  EXPECT_EQ(gpu->desc().group, (GroupKey{LaneKind::GpuStream, 0}));
  // A lane keeps its id when another lane comes before it and its index changes.
  const Trace reordered = lanes_trace(true);
  const TimelineRows again = make_timeline_rows(reordered);
  const EventLaneRow* host_again = lane_row(again, "lane:host:1234:1685");
  ASSERT_NE(host_again, nullptr);
  EXPECT_NE(host_again->lane_index(), host->lane_index());
  EXPECT_EQ(reordered.lane(host_again->lane_index()).key, t.lane(host->lane_index()).key);
}

TEST(EventLaneRow, EventsAndMergedBlocksUnderAPoint) {
  const Trace t = lanes_trace();
  const TimelineRows rows = make_timeline_rows(t);
  const EventLaneRow* host = lane_row(rows, "lane:host:1234:1685");
  ASSERT_NE(host, nullptr);
  const LaneIndex lane = host->lane_index();
  // aten::mm is at depth 1, within two pixels of 99 us at 1 us a pixel.
  const auto mm = host->event_at(99'000, 1, 1'000);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(t.name(t.event(*mm)), "aten::mm");
  EXPECT_EQ(mm->lane, lane);
  EXPECT_FALSE(host->event_at(50'000, 1, 1'000).has_value());
  EXPECT_EQ(host->tooltip_at(200'000, 1, 1'000, 0).toStdString(), tooltip_text(t, *mm, 0));
  EXPECT_TRUE(host->tooltip_at(50'000, 1, 1'000, 0).isEmpty());
  // Seen 3 ms wide in 300 pixels (10 us a pixel), the 1 us events merge into one block.
  RowHit hit;
  hit.t_ns = 2'100'000;
  hit.depth = 0;
  hit.ns_per_px = 10'000;
  hit.window = {0, 3'000'000};
  hit.width_px = 300;
  const auto block = host->span_under(hit);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->count, 200u);
  const std::string tip = host->tooltip_under(hit).toStdString();
  EXPECT_EQ(tip.rfind("200 events merged (zoom in to see them)\nfrom ", 0), 0u) << tip;
  EXPECT_NE(tip.find("first: tiny"), std::string::npos) << tip;
  // Over a single event the tooltip is the event's, and a click selects it.
  hit.t_ns = 500'000;
  EXPECT_EQ(host->tooltip_under(hit).toStdString().rfind("step", 0), 0u);
  const auto step = host->event_under(hit);
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(t.name(t.event(*step)), "step");
}

TEST(EventLaneRow, HasContentWhereAnEventOverlapsTheWindow) {
  const Trace t = lanes_trace();
  const TimelineRows rows = make_timeline_rows(t);
  const EventLaneRow* gpu = lane_row(rows, "lane:gpu:0:7");
  ASSERT_NE(gpu, nullptr);
  EXPECT_TRUE(gpu->has_content_in(0, 151'000));
  EXPECT_TRUE(gpu->has_content_in(249'000, 400'000));
  EXPECT_FALSE(gpu->has_content_in(0, 150'000));
  EXPECT_FALSE(gpu->has_content_in(250'000, 400'000));
  EXPECT_EQ(gpu->depths_in({0, 400'000}), 1);
  EXPECT_EQ(gpu->depths_in({300'000, 400'000}), 0);
}

}  // namespace gtv::ui
