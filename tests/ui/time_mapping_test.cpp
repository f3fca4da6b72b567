#include "gtv/ui/time_mapping.h"

#include <gtest/gtest.h>

namespace gtv::ui {
namespace {

TEST(TimeMapping, PixelRunsMergeWhereTheyMeetWithinAPixel) {
  // Unsorted input; [10,12) and [12.5,14) meet within a pixel, [20,21) is apart, [0,30) would swallow everything.
  const auto runs = merge_pixel_runs({{20, 21}, {12.5, 14}, {10, 12}, {13, 13.5}});
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_DOUBLE_EQ(runs[0].first, 10);
  EXPECT_DOUBLE_EQ(runs[0].second, 14);
  EXPECT_DOUBLE_EQ(runs[1].first, 20);
  EXPECT_DOUBLE_EQ(runs[1].second, 21);
  EXPECT_EQ(merge_pixel_runs({{0, 30}, {5, 6}, {29, 31}}).size(), 1U);
  EXPECT_TRUE(merge_pixel_runs({}).empty());
}

TEST(TimeMapping, MapsBothWays) {
  const TimeMapping map({1'000, 11'000}, 1'000);  // 10 ns per pixel
  EXPECT_DOUBLE_EQ(map.ns_per_px(), 10.0);
  EXPECT_DOUBLE_EQ(map.x_of(1'000), 0.0);
  EXPECT_DOUBLE_EQ(map.x_of(6'000), 500.0);
  EXPECT_DOUBLE_EQ(map.x_of(11'000), 1'000.0);
  EXPECT_EQ(map.time_at(0), 1'000);
  EXPECT_EQ(map.time_at(250.4), 3'504);
  EXPECT_EQ(map.time_at(-10), 900);
}

TEST(TimeMapping, ZoomKeepsTheAnchorInPlace) {
  const TimeWindow w{0, 1'000'000};
  const TimeWindow z = zoom_window(w, 250'000, 2.0);
  EXPECT_EQ(z, (TimeWindow{125'000, 625'000}));
  // The anchor sits at the same fraction of the width before and after.
  EXPECT_DOUBLE_EQ(TimeMapping(w, 800).x_of(250'000), TimeMapping(z, 800).x_of(250'000));
  EXPECT_EQ(zoom_window(z, 250'000, 0.5), w);
}

TEST(TimeMapping, ZoomStopsAtTheMinimumSpan) {
  const TimeWindow w{0, 12};
  EXPECT_EQ(zoom_window(w, 6, 4.0), w);
}

TEST(TimeMapping, PanMovesByPixelsTimesResolution) {
  const TimeWindow w{0, 2'000};  // 2 ns per pixel at 1000 px
  EXPECT_EQ(pan_window(w, 100, 1'000), (TimeWindow{200, 2'200}));
  EXPECT_EQ(pan_window(w, -50.5, 1'000), (TimeWindow{-101, 1'899}));
}

TEST(TimeMapping, ClampKeepsTheWindowInsideBounds) {
  const TimeWindow bounds{0, 10'000};
  EXPECT_EQ(clamp_window({-500, 1'500}, bounds), (TimeWindow{0, 2'000}));
  EXPECT_EQ(clamp_window({9'000, 11'000}, bounds), (TimeWindow{8'000, 10'000}));
  EXPECT_EQ(clamp_window({-1, 20'000}, bounds), bounds);
  EXPECT_EQ(clamp_window({4'000, 5'000}, bounds), (TimeWindow{4'000, 5'000}));
  EXPECT_EQ(clamp_window({100, 102}, bounds), (TimeWindow{96, 106}));
}

TEST(TimeMapping, FitAddsAMarginOnEachSide) {
  EXPECT_EQ(fit_window(1'000, 2'000, 0.1), (TimeWindow{900, 2'100}));
  EXPECT_EQ(fit_window(5, 5, 0.0).span_ns(), kMinSpanNs);
}

TEST(TimeMapping, UnitsFollowTheSpan) {
  EXPECT_STREQ(choose_time_unit(1'999).suffix, "ns");
  EXPECT_STREQ(choose_time_unit(2'000).suffix, "us");
  EXPECT_STREQ(choose_time_unit(1'999'999).suffix, "us");
  EXPECT_STREQ(choose_time_unit(7'700'000).suffix, "ms");
  EXPECT_STREQ(choose_time_unit(2'000'000'000).suffix, "s");
}

TEST(TimeMapping, AxisLabelsHaveJustEnoughDecimals) {
  const TimeUnit ms{1e6, "ms"};
  EXPECT_EQ(format_axis_time(12'000'000, ms, 2'000'000), "12 ms");
  EXPECT_EQ(format_axis_time(12'500'000, ms, 500'000), "12.5 ms");
  EXPECT_EQ(format_axis_time(12'250'000, ms, 50'000), "12.25 ms");
  EXPECT_EQ(format_axis_time(-1e-3, ms, 1'000'000), "0 ms");
}

TEST(TimeMapping, AxisLabelsAreExactOnHalfSteps) {
  // A 2.5 ms step over a 20 ms view: the ticks are written as they are, never rounded to whole ms.
  const AxisLabeling l = choose_axis_labeling(445e6, 465e6, 2.5e6);
  EXPECT_FALSE(l.has_base);
  EXPECT_EQ(axis_tick_label(447.5e6, l, true), "447.5 ms");
  EXPECT_EQ(axis_tick_label(452.5e6, l, false), "452.5 ms");
  EXPECT_EQ(axis_tick_label(457.5e6, l, false), "457.5 ms");
  EXPECT_EQ(axis_tick_label(450e6, l, false), "450.0 ms");
  EXPECT_EQ(exact_decimals(2.5), 1);
  EXPECT_EQ(exact_decimals(0.05), 2);
  EXPECT_EQ(exact_decimals(5), 0);
  EXPECT_EQ(exact_decimals(0.25), 2);
}

TEST(TimeMapping, FineZoomCountsFromAnOffsetBase) {
  // 500 us around 449.5 ms: absolute labels would be "449750 us".
  const AxisLabeling l = choose_axis_labeling(449.5e6, 450.0e6, 50e3);
  ASSERT_TRUE(l.has_base);
  EXPECT_EQ(l.base_text, "449.5 ms");
  EXPECT_EQ(axis_tick_label(449.5e6, l, true), "449.5 ms");
  EXPECT_EQ(axis_tick_label(449.55e6, l, true), "449.5 ms + 50 us");
  EXPECT_EQ(axis_tick_label(449.75e6, l, false), "+250 us");
  EXPECT_EQ(axis_tick_label(449.8e6, l, false), "+300 us");
  // A 1.7 ms view: the base is the tick before the start, offsets whole steps.
  const AxisLabeling iteration = choose_axis_labeling(354.8e6, 356.5e6, 250e3);
  EXPECT_EQ(iteration.base_text, "354.75 ms");
  EXPECT_EQ(axis_tick_label(355e6, iteration, true), "354.75 ms + 250 us");
  EXPECT_EQ(axis_tick_label(356.25e6, iteration, false), "+1500 us");
  // A 2 us wide view: offsets in us with the step's decimals, the base written once, short.
  const AxisLabeling fine = choose_axis_labeling(449'500'100, 449'502'100, 250);
  ASSERT_TRUE(fine.has_base);
  EXPECT_EQ(fine.base_text, "449.5 ms");
  EXPECT_EQ(axis_tick_label(449'500'250, fine, true), "449.5 ms + 0.25 us");
  EXPECT_EQ(axis_tick_label(449'501'500, fine, false), "+1.50 us");
  // Near the origin no base is needed: "250 us" is already short.
  const AxisLabeling near = choose_axis_labeling(0, 500e3, 50e3);
  EXPECT_FALSE(near.has_base);
  EXPECT_EQ(axis_tick_label(250e3, near, true), "250 us");
  // Every label of a fine view stays short (no six-digit numbers).
  for (double t = 449'500'100; t <= 449'502'100; t += 250)
    EXPECT_LE(axis_tick_label(t, fine, false).size(), 9u) << axis_tick_label(t, fine, false);
}

}  // namespace
}  // namespace gtv::ui
