#include "gtv/model/lod.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

// A lane from (start, duration) pairs at depth 0 unless nested.
Trace lane_of(std::initializer_list<std::pair<TimeNs, TimeNs>> spans) {
  TraceBuilder b;
  const LaneIndex lane = b.lane(gpu_lane_key(0, 7));
  for (auto [start, dur] : spans) {
    Event e;
    e.start_ns = start;
    e.duration_ns = dur;
    e.kind = EventKind::Kernel;
    b.add_event(lane, e);
  }
  return std::move(b.build().value());
}

LodSpan span(TimeNs start, TimeNs end, std::uint32_t first, std::uint32_t count, std::uint16_t depth = 0) {
  return LodSpan{start, end, first, count, depth};
}

}  // namespace

TEST(Lod, WideEventsComeBackOneByOne) {
  Trace t = lane_of({{0, 100}, {200, 100}, {400, 100}});
  // 10 ns per pixel: every event is 10 px wide.
  auto spans = query_lod(t.lane(0), {0, 1000, 100});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(0, 100, 0, 1), span(200, 300, 1, 1), span(400, 500, 2, 1)}));
}

TEST(Lod, SubPixelRunsMergeIntoCountedBlocks) {
  // 100 ns per pixel; ten 10 ns kernels 20 ns apart, then a gap of 500 ns, then one wide kernel.
  Trace t = lane_of({{0, 10},
                     {20, 10},
                     {40, 10},
                     {60, 10},
                     {80, 10},
                     {100, 10},
                     {120, 10},
                     {140, 10},
                     {160, 10},
                     {180, 10},
                     {700, 300}});
  auto spans = query_lod(t.lane(0), {0, 10'000, 100});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(0, 190, 0, 10), span(700, 1000, 10, 1)}));
}

// A 2 ns event record and, 1.7 ns later in the same pixel column, a 72.9 us synchronize 729 px wide (the
// recordings' pattern): the wide call comes back alone with its own span, never inside a merged block.
TEST(Lod, AWideEventStartingInASubPixelEventsColumnComesBackAlone) {
  Trace t = lane_of({{0, 2}, {4, 10}, {20, 72'900}, {72'930, 5}, {72'940, 5}});
  auto spans = query_lod(t.lane(0), {0, 100'000, 1000});  // 100 ns per pixel
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(0, 14, 0, 2), span(20, 72'920, 2, 1), span(72'930, 72'945, 3, 2)}));
  // Zoomed out further the same holds for any event of at least one pixel.
  spans = query_lod(t.lane(0), {0, 72'900'000, 1000});  // 72.9 us per pixel: the synchronize is exactly 1 px
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[1], span(20, 72'920, 2, 1));
}

// A block grows column by column; a wide event at the end of a later column stops it there and stands alone.
TEST(Lod, ABlockStopsBeforeAWideEventInALaterColumn) {
  Trace t = lane_of({{0, 10}, {50, 10}, {120, 10}, {150, 400}});  // 100 ns per pixel
  auto spans = query_lod(t.lane(0), {0, 10'000, 100});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(0, 130, 0, 3), span(150, 550, 3, 1)}));
}

TEST(Lod, GapsOfAPixelOrMoreSplitBlocks) {
  // 100 ns per pixel: two groups of tiny events 300 ns apart stay separate blocks.
  Trace t = lane_of({{0, 10}, {30, 10}, {400, 10}, {430, 10}});
  auto spans = query_lod(t.lane(0), {0, 10'000, 100});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(0, 40, 0, 2), span(400, 440, 2, 2)}));
}

TEST(Lod, LoneSubPixelEventIsASingleSpan) {
  Trace t = lane_of({{500, 1}});
  auto spans = query_lod(t.lane(0), {0, 10'000, 100});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(500, 501, 0, 1)}));
}

TEST(Lod, ClipsToTheRequestedWindow) {
  Trace t = lane_of({{0, 100}, {200, 100}, {400, 100}, {600, 100}});
  // [250, 450): the event ending at 300 overlaps the window, the one starting at 400 too, 600 does not.
  auto spans = query_lod(t.lane(0), {250, 450, 200});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(200, 300, 1, 1), span(400, 500, 2, 1)}));
  EXPECT_TRUE(query_lod(t.lane(0), {800, 900, 100}).empty());
  EXPECT_TRUE(query_lod(t.lane(0), {900, 800, 100}).empty());  // empty window
}

TEST(Lod, ReportsEachDepthSeparately) {
  TraceBuilder b;
  const LaneIndex lane = b.lane(host_lane_key(1, 1));
  auto add = [&](TimeNs start, TimeNs dur) {
    Event e;
    e.start_ns = start;
    e.duration_ns = dur;
    e.kind = EventKind::CpuOp;
    b.add_event(lane, e);
  };
  add(0, 1000);   // depth 0
  add(100, 200);  // depth 1
  add(500, 300);  // depth 1
  Trace t = std::move(b.build().value());
  auto spans = query_lod(t.lane(0), {0, 1000, 100});
  EXPECT_EQ(spans, (std::vector<LodSpan>{span(0, 1000, 0, 1, 0), span(100, 300, 1, 1, 1), span(500, 800, 2, 1, 1)}));
}

TEST(Lod, MillionEventsCollapseToAFewBlocksPerPixel) {
  TraceBuilder b;
  const LaneIndex lane = b.lane(gpu_lane_key(0, 7));
  for (int i = 0; i < 1'000'000; ++i) {
    Event e;
    e.start_ns = i * 10;
    e.duration_ns = 5;
    e.kind = EventKind::Kernel;
    b.add_event(lane, e);
  }
  Trace t = std::move(b.build().value());
  auto spans = query_lod(t.lane(0), {0, 10'000'000, 1000});
  // Contiguous sub-pixel run: one block holding every event.
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].count, 1'000'000u);
  EXPECT_EQ(spans[0].end_ns, 9'999'995);
  // Zoomed to 1000 ns over 1000 px: 1 ns per pixel, every event is 5 px wide.
  auto zoomed = query_lod(t.lane(0), {5'000'000, 5'001'000, 1000});
  ASSERT_EQ(zoomed.size(), 100u);
  EXPECT_EQ(zoomed.front(), span(5'000'000, 5'000'005, 500'000, 1));
}

TEST(Lod, TheSummaryGivesTheSameSpansAtEveryZoom) {
  // Nested host-like work with runs of short events, long events and gaps of every size, so that some summary
  // blocks are passed whole and others are not, at zooms from a nanosecond to the whole lane per pixel.
  TraceBuilder b;
  const LaneIndex lane = b.lane(host_lane_key(1, 2));
  std::mt19937_64 rng(7);
  TimeNs t = 0;
  for (int i = 0; i < 20'000; ++i) {
    Event e;
    e.start_ns = t;
    e.duration_ns = i % 997 == 0 ? 50'000 : 1 + static_cast<TimeNs>(rng() % 300);
    e.kind = EventKind::Runtime;
    b.add_event(lane, e);
    if (i % 5 == 0) {  // a child inside it
      Event child = e;
      child.start_ns = e.start_ns + e.duration_ns / 4;
      child.duration_ns = std::max<TimeNs>(1, e.duration_ns / 2);
      b.add_event(lane, child);
    }
    t += e.duration_ns + (i % 301 == 0 ? 20'000 : static_cast<TimeNs>(rng() % 200));
  }
  Trace trace = std::move(b.build().value());
  const Lane& l = trace.lane(0);
  const LodSummary summary = summarise_lod(l);
  ASSERT_EQ(summary.by_depth.size(), 2u);
  int passed_whole = 0;
  for (const double width_px : {1.0, 97.0, 1920.0}) {
    for (TimeNs window_ns = 1; window_ns < 4 * t; window_ns *= 3) {
      for (const TimeNs t0 : {TimeNs{-5}, t / 3, t - window_ns / 2}) {
        const LodRequest request{t0, t0 + window_ns, width_px};
        std::vector<LodSpan> plain, summarised;
        query_lod(l, request, plain);
        query_lod(l, request, summarised, &summary);
        ASSERT_EQ(summarised, plain) << "window " << t0 << " + " << window_ns << " ns over " << width_px << " px";
        for (const LodSpan& s : plain) passed_whole += s.count > LodSummary::kBlockEvents ? 1 : 0;
      }
    }
  }
  EXPECT_GT(passed_whole, 0);  // some blocks were long enough for the summary to pass blocks whole
}

// Searched from an earlier answer, as pixel columns search, the first event ending after a time is the one a search
// of the whole lane finds: at steps shorter than an event, across gaps, past the last event.
TEST(Lod, FirstEndingAfterFromAnEarlierAnswerIsTheWholeSearchs) {
  TraceBuilder b;
  const LaneIndex lane = b.lane(gpu_lane_key(0, 7));
  std::mt19937_64 rng(11);
  TimeNs t = 0;
  for (int i = 0; i < 5'000; ++i) {
    Event e;
    e.start_ns = t;
    e.duration_ns = 1 + static_cast<TimeNs>(rng() % 100);
    e.kind = EventKind::Kernel;
    b.add_event(lane, e);
    t += e.duration_ns + (i % 97 == 0 ? 5'000 : static_cast<TimeNs>(rng() % 50));
  }
  const Trace trace = std::move(b.build().value());
  const Lane& l = trace.lane(0);
  for (const TimeNs step_ns : {TimeNs{1}, TimeNs{7}, TimeNs{333}, TimeNs{40'000}}) {
    std::size_t k = first_ending_after(l, 0, -10);
    for (TimeNs at = -10; at < t + 2 * step_ns; at += step_ns) {
      k = first_ending_after(l, 0, at, k);
      ASSERT_EQ(k, first_ending_after(l, 0, at)) << "at " << at << " ns in steps of " << step_ns;
    }
    EXPECT_EQ(k, l.by_depth[0].size());  // past the last event: none ends later
  }
}

TEST(Lod, EventAtFindsTheEventUnderAPoint) {
  Trace t = lane_of({{0, 100}, {200, 100}});
  EXPECT_EQ(event_at(t.lane(0), 0, 50), 0);
  EXPECT_EQ(event_at(t.lane(0), 0, 250), 1);
  EXPECT_EQ(event_at(t.lane(0), 0, 150), -1);
  EXPECT_EQ(event_at(t.lane(0), 0, 150, 60), 0);  // nearest within tolerance: 50 from the first, 50 from the
  EXPECT_EQ(event_at(t.lane(0), 1, 50), -1);      // second; the first found wins
}

}  // namespace gtv
