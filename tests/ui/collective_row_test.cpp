// The collective rows of a merged run: each rank's arrival, wait for peers and transfer per collective, the rank
// the others waited for, and each rank's clock in its headers; on two synthetic NCCL ranks with hand-computed
// waits, and on the bundled 4-rank Gloo recording with a 5 ms straggler on rank 2.
#include "gtv/ui/collective_row.h"

#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>
#include <algorithm>
#include <set>
#include <string>

#include "../unit/analysis/trace_helpers.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/lane_layout.h"

namespace gtv::ui {
namespace {

constexpr TimeNs kUs = 1000;
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// One rank on its cuda:0: a GEMM, then all-reduces [start, end).
Trace rank_file(std::int64_t rank, std::int64_t pid, const std::vector<std::pair<TimeNs, TimeNs>>& allreduces) {
  TraceBuilder b;
  b.metadata().distributed = {rank, 2, "nccl"};
  analysis::testing::host_call(b, pid, pid, "cudaLaunchKernel", 10 * kUs, 5 * kUs, EventKind::Runtime, 1);
  analysis::testing::kernel(b, 0, 7, "sm90_xmma_gemm_f32f32", 20 * kUs, 100 * kUs, 1);
  for (const auto& [start, end] : allreduces) analysis::testing::kernel(b, 0, 7, kAllReduce, start, end - start);
  return analysis::testing::build(b);
}

// Rank 1 starts each all-reduce 150, 100 and 150 us after rank 0, so rank 0 waits that long for it at each; the
// ends differ by 1, 3 and 2 us (rank 1's clock reads 2 us ahead, +/- 1 us).
Trace two_ranks(ClockMethod clock = ClockMethod::WallClock) {
  const Trace r0 = rank_file(0, 100, {{200 * kUs, 400 * kUs}, {600 * kUs, 800 * kUs}, {1000 * kUs, 1200 * kUs}});
  const Trace r1 = rank_file(1, 200, {{350 * kUs, 401 * kUs}, {700 * kUs, 803 * kUs}, {1150 * kUs, 1202 * kUs}});
  const std::vector<RankFile> files{{&r0, "rank0.json"}, {&r1, "rank1.json"}};
  RankMergeOptions options;
  options.clock = clock;
  Expected<RankMerge> m = merge_ranks(files, options);
  if (!m) throw std::runtime_error(m.error().message);
  return std::move(m->trace);
}

Rgb pixel(const QImage& image, double x, double y) {
  return static_cast<Rgb>(image.pixel(static_cast<int>(x), static_cast<int>(y)) & 0xffffff);
}

TEST(CollectiveRow, EachRankShowsItsWaitForTheLastArrivalAndTheTransferAfter) {
  const Trace t = two_ranks();
  const OverlayData o = overlays_of(t, analysis::analyze(t));
  ASSERT_EQ(o.collectives.size(), 2u);
  const RankCollectives& r0 = o.collectives[0];
  const RankCollectives& r1 = o.collectives[1];
  EXPECT_EQ(r0.rank, 0);
  EXPECT_EQ(r1.rank, 1);
  EXPECT_TRUE(r0.on_gpu);
  ASSERT_EQ(r0.parts.size(), 3u);
  ASSERT_EQ(r1.parts.size(), 3u);
  const TimeNs waits_ns[] = {150 * kUs, 100 * kUs, 150 * kUs};
  for (std::size_t i = 0; i < 3; ++i) {
    const CollectivePart& victim = r0.parts[i];
    const CollectivePart& culprit = r1.parts[i];
    EXPECT_EQ(victim.wait_end_ns - victim.arrival_ns, waits_ns[i]) << i;
    EXPECT_EQ(victim.wait_end_ns, culprit.arrival_ns) << i;  // rank 0 waited until rank 1 arrived
    EXPECT_EQ(victim.last_arrival_ns, culprit.arrival_ns) << i;
    EXPECT_FALSE(victim.culprit);
    EXPECT_TRUE(culprit.culprit);
    EXPECT_EQ(culprit.wait_end_ns, culprit.arrival_ns);  // the last arrival waits for nobody
    EXPECT_TRUE(victim.counted);
  }

  // The rows go under each rank's GPU, below its lanes.
  const CollectiveRow row0(r0);
  const CollectiveRow row1(r1);
  EXPECT_EQ(row0.desc().group, (GroupKey{LaneKind::GpuStream, r0.group}));
  EXPECT_NE(r0.group, r1.group);
  EXPECT_EQ(row0.desc().place, RowPlace::Bottom);
  EXPECT_EQ(row0.desc().id, "collectives 0");

  // The victim's tooltip gives its wait and the culprit; the culprit's says the others waited for it.
  const TimeNs origin_ns = t.start_ns();
  const std::string victim = row0.tooltip_at(r0.parts[0].arrival_ns + 50 * kUs, 0, 1, origin_ns).toStdString();
  EXPECT_EQ(victim.rfind("all-reduce #1, rank 0's part (" + r0.where + ")\n", 0), 0u) << victim;
  EXPECT_NE(victim.find("waited for peers 150.000 us, then moved data 50.000 us"), std::string::npos) << victim;
  EXPECT_NE(victim.find("rank 1 arrived last, 150.0 us after the first; the others waited for it 150.0 us in total "
                        "(rank 0 150.0 us)"),
            std::string::npos)
      << victim;
  const std::string culprit = row1.tooltip_at(r1.parts[1].arrival_ns + kUs, 0, 1, origin_ns).toStdString();
  EXPECT_EQ(culprit.rfind("all-reduce #2, rank 1's part", 0), 0u) << culprit;
  EXPECT_NE(culprit.find("the others waited for it here"), std::string::npos) << culprit;
  EXPECT_NE(victim.find("\nclick to select its kernel"), std::string::npos) << victim;
  // A click on the part selects the rank's all-reduce kernel.
  const std::optional<EventRef> clicked = row0.event_at(r0.parts[2].arrival_ns + kUs, 0, 1);
  ASSERT_TRUE(clicked.has_value());
  EXPECT_EQ(t.event(*clicked).start_ns, r0.parts[2].arrival_ns);
  EXPECT_EQ(t.name(t.event(*clicked)), kAllReduce);
  EXPECT_FALSE(row0.event_at(origin_ns + 120 * kUs, 0, 1).has_value());
  EXPECT_TRUE(row0.tooltip_at(origin_ns + 120 * kUs, 0, 1, origin_ns).isEmpty());  // before the first collective
  EXPECT_TRUE(row0.has_content_in(origin_ns, origin_ns + 1300 * kUs));
  EXPECT_FALSE(row0.has_content_in(origin_ns, origin_ns + 150 * kUs));

  // Drawn at 1 px per microsecond: the wait in the wait colour, the transfer in the transfer colour.
  QImage image(1300, 20, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  const TimeMapping map(TimeWindow{origin_ns, origin_ns + 1300 * kUs}, 1300);
  const Theme theme;
  for (const CollectiveRow* row : {&row0}) {
    RowPaint p{&painter, &map, &theme, QRectF(0, 0, 1300, 20), 20};
    row->draw(p);
  }
  painter.end();
  const auto x_at = [&](TimeNs t_ns) { return map.x_of(t_ns); };
  EXPECT_EQ(pixel(image, x_at(r0.parts[0].arrival_ns + 75 * kUs), 10), kCollectiveWaitColor);
  EXPECT_EQ(pixel(image, x_at(r0.parts[0].end_ns - 20 * kUs), 10), kCollectiveTransferColor);
  EXPECT_EQ(pixel(image, x_at(r0.parts[0].arrival_ns - 20 * kUs), 10), 0xffffffu);
}

TEST(CollectiveRow, EachRankHeaderCarriesItsClockWithItsErrorBar) {
  const Trace t = two_ranks();
  const OverlayData o = overlays_of(t, analysis::analyze(t));
  ASSERT_EQ(o.rank_clocks.size(), 2u);
  EXPECT_EQ(o.rank_clocks[0], (std::pair<std::int64_t, std::string>{0, "reference clock"}));
  EXPECT_EQ(o.rank_clocks[1], (std::pair<std::int64_t, std::string>{1, "clock +2.00 us \u00b11.0 us"}));

  // Lanes 0 and 1 in rank 1's process, lane 2 in its GPU, lane 3 outside any rank, lane 4 rank 0's GPU: only the
  // first group of each rank gets the clock.
  std::vector<LaneDesc> lanes(5);
  lanes[0].key = {LaneKind::HostThread, 10, 1};
  lanes[1].key = {LaneKind::HostThread, 10, 2};
  lanes[2].key = {LaneKind::GpuStream, 1, 7};
  lanes[3].key = {LaneKind::HostThread, 5, 5};
  lanes[4].key = {LaneKind::GpuStream, 0, 7};
  for (const std::size_t i : {0u, 1u, 2u}) lanes[i].rank = 1;
  lanes[4].rank = 0;
  const std::vector<std::string> labels =
      with_rank_clocks({"rank 1 \u00b7 Process 10", "rank 1 \u00b7 Process 10", "rank 1 \u00b7 GPU 1  NVIDIA H200",
                        "Process 5", "rank 0 \u00b7 GPU 0"},
                       lanes, o.rank_clocks);
  EXPECT_EQ(labels[0], "rank 1 \u00b7 clock +2.00 us \u00b11.0 us \u00b7 Process 10");
  EXPECT_EQ(labels[1], labels[0]);
  EXPECT_EQ(labels[2], "rank 1 \u00b7 GPU 1  NVIDIA H200");
  EXPECT_EQ(labels[3], "Process 5");
  EXPECT_EQ(labels[4], "rank 0 \u00b7 reference clock \u00b7 GPU 0");

  // Merged on the collectives' clock, rank 1 was moved back by the median end difference, 2 us.
  const Trace aligned = two_ranks(ClockMethod::Collectives);
  const OverlayData moved = overlays_of(aligned, analysis::analyze(aligned));
  ASSERT_EQ(moved.rank_clocks.size(), 2u);
  EXPECT_EQ(moved.rank_clocks[1].second, "clock shifted -2.00 us \u00b11.0 us");

  // In the merged run, one header per rank names its clock.
  const std::vector<LaneDesc> trace_lanes = lane_descs(t);
  const std::vector<std::string> headers = rank_group_labels(t, trace_lanes, o.rank_clocks);
  ASSERT_EQ(headers.size(), trace_lanes.size());
  std::set<std::string> clocked;
  for (const std::string& h : headers)
    if (h.find("clock") != std::string::npos) clocked.insert(h);
  EXPECT_EQ(clocked.size(), 2u);
}

// Four Gloo ranks on the CPU, rank 2 sleeping 5 ms before each step: its rows are under the ranks' processes,
// rank 2 is the arrival waited for at 10 of the 11 all-reduces (as `gtv-cli analyze` says), and the broadcasts,
// whose root Gloo does not record, are drawn as not counted.
TEST(CollectiveRow, GlooStragglerRecordingMarksRankTwo) {
  const auto trace = io::read_trace(GTV_SOURCE_DIR "/resources/traces/cpu/ddp-gloo4-straggler.json.gz");
  ASSERT_TRUE(trace) << trace.error().message;
  const OverlayData o = overlays_of(*trace, analysis::analyze(*trace));
  ASSERT_EQ(o.collectives.size(), 4u);
  for (const RankCollectives& r : o.collectives) {
    EXPECT_FALSE(r.on_gpu) << r.rank;
    EXPECT_EQ(r.parts.size(), 27u) << r.rank;  // 11 all-reduces and 16 broadcasts
    EXPECT_EQ(std::count_if(r.parts.begin(), r.parts.end(), [](const CollectivePart& p) { return !p.counted; }), 16)
        << r.rank;
    const auto culprit =
        std::count_if(r.parts.begin(), r.parts.end(), [](const CollectivePart& p) { return p.culprit; });
    EXPECT_EQ(culprit, r.rank == 2 ? 10 : r.rank == 1 ? 1 : 0) << r.rank;
  }
  EXPECT_EQ(o.rank_clocks.size(), 4u);
}

}  // namespace
}  // namespace gtv::ui
