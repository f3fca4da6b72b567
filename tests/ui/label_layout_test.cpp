#include "gtv/ui/label_layout.h"

#include <gtest/gtest.h>

#include <random>

namespace gtv::ui {
namespace {

struct Box {
  int row;
  double x0, x1;
};

// What a placed bracket occupies in its row: its visible span and its label.
Box occupied(const LabelRequest& r, const LabelPlacement& p, double left, double right) {
  const double x0 = std::max(r.x0_px, left), x1 = std::min(r.x1_px, right);
  if (!p.labelled()) return {p.row, x0, x1};
  return {p.row, std::min(x0, p.x_px), std::max(x1, p.right_px())};
}

void expect_readable(const std::vector<LabelRequest>& requests, const std::vector<LabelPlacement>& placements,
                     double left, double right, int rows) {
  ASSERT_EQ(placements.size(), requests.size());
  for (std::size_t i = 0; i < placements.size(); ++i) {
    const LabelPlacement& p = placements[i];
    if (p.row < 0) continue;
    EXPECT_LT(p.row, rows);
    if (p.labelled()) {
      // Never clipped by the plot's edges, never wider than asked.
      EXPECT_GE(p.x_px, left) << i;
      EXPECT_LE(p.right_px(), right + 1e-9) << i;
      EXPECT_LE(p.width_px, requests[i].full_px + 1e-9) << i;
    }
    const Box a = occupied(requests[i], p, left, right);
    for (std::size_t j = i + 1; j < placements.size(); ++j) {
      if (placements[j].row != p.row) continue;
      const Box b = occupied(requests[j], placements[j], left, right);
      // In one row nothing overlaps: no label meets another label or another bracket's line. Rows are stacked
      // apart, so a bracket of another row never crosses a label either.
      const bool apart = a.x1 <= b.x0 || b.x1 <= a.x0;
      EXPECT_TRUE(apart) << "brackets " << i << " and " << j << " in row " << p.row;
    }
  }
}

TEST(LabelLayout, ApartBracketsKeepWholeLabelsAtTheirStart) {
  const std::vector<LabelRequest> requests = {{100, 400, 200, 60}, {500, 900, 250, 60}, {1000, 1100, 90, 40}};
  const auto placed = layout_bracket_labels(requests, 0, 1600, 4);
  expect_readable(requests, placed, 0, 1600, 4);
  for (std::size_t i = 0; i < placed.size(); ++i) {
    EXPECT_GE(placed[i].row, 0);
    EXPECT_EQ(placed[i].width_px, requests[i].full_px);
    EXPECT_EQ(placed[i].x_px, requests[i].x0_px + 4);
  }
}

TEST(LabelLayout, OverlappingLabelsTakeTheNextRow) {
  // Thirty short measurements side by side, labels wider than the brackets (the warm-up recording).
  std::vector<LabelRequest> requests;
  for (int i = 0; i < 30; ++i) requests.push_back({100.0 + i * 40, 130.0 + i * 40, 260, 110});
  const auto placed = layout_bracket_labels(requests, 0, 1600, 4);
  expect_readable(requests, placed, 0, 1600, 4);
  int rows_used = 0;
  for (const auto& p : placed) rows_used = std::max(rows_used, p.row + 1);
  EXPECT_EQ(rows_used, 4);
  for (const auto& p : placed) EXPECT_GE(p.row, 0);  // every bracket is drawn, labelled or not
}

TEST(LabelLayout, ALabelReachesLeftWhenItsRightIsTaken) {
  // One row: a short bracket, then another right after it; the first one's label, wider than its bracket, ends
  // 12 px before the bracket's start, for a leader line, never half under it over its foot.
  const std::vector<LabelRequest> requests = {{600, 700, 300, 300}, {702, 900, 100, 100}};
  const auto placed = layout_bracket_labels(requests, 0, 1600, 1);
  expect_readable(requests, placed, 0, 1600, 1);
  EXPECT_DOUBLE_EQ(placed[0].right_px(), 588);
  EXPECT_DOUBLE_EQ(placed[0].width_px, 300);
}

TEST(LabelLayout, LabelsStayInsideThePlot) {
  // A bracket reaching past the right edge: its label is pushed left to end at the edge, whole.
  const std::vector<LabelRequest> requests = {{1500, 2500, 300, 80}, {-500, 50, 200, 80}};
  const auto placed = layout_bracket_labels(requests, 0, 1600, 2);
  expect_readable(requests, placed, 0, 1600, 2);
  EXPECT_DOUBLE_EQ(placed[0].right_px(), 1600);
  EXPECT_DOUBLE_EQ(placed[0].width_px, 300);
  EXPECT_DOUBLE_EQ(placed[1].x_px, 4);
  // A label wider than a narrow plot (the projector's large font) takes the plot's width, to be elided.
  const std::vector<LabelRequest> wide = {{10, 50, 700, 120}};
  const auto narrow = layout_bracket_labels(wide, 0, 400, 1);
  expect_readable(wide, narrow, 0, 400, 1);
  EXPECT_DOUBLE_EQ(narrow[0].width_px, 400);
  // Outside the plot: not placed.
  const std::vector<LabelRequest> outside = {{-300, -10, 100, 50}};
  EXPECT_EQ(layout_bracket_labels(outside, 0, 400, 1)[0].row, -1);
}

TEST(LabelLayout, RandomBracketSetsNeverIntersect) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> start(-200, 1800), length(0, 600), width(40, 500);
  std::uniform_int_distribution<int> count(1, 60), row_count(1, 6);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<LabelRequest> requests;
    const int n = count(rng);
    for (int i = 0; i < n; ++i) {
      const double x0 = start(rng), full = width(rng);
      requests.push_back({x0, x0 + length(rng), full, std::min(full, 40.0)});
    }
    const double left = 240, right = 1600;
    const int rows = row_count(rng);
    expect_readable(requests, layout_bracket_labels(requests, left, right, rows), left, right, rows);
  }
}

// Warm-up names on one line: each finding named once, its label starting at its span, labels apart, never past the
// plot's right edge; a span starting within the narrowest label of the one before it is merged into that label.
void expect_one_line(const std::vector<SpanLabelRequest>& requests, const std::vector<SpanLabel>& labels, double left,
                     double right, double gap) {
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const SpanLabel& l = labels[k];
    EXPECT_GE(l.x_px, left);
    EXPECT_LE(l.right_px(), right + 1e-9);
    if (k > 0) {
      EXPECT_GE(l.x_px, labels[k - 1].right_px() + gap - 1e-9) << k;
    }
    for (const std::size_t i : l.requests) {
      // Its span meets the label, or starts within the gap after it.
      EXPECT_LE(l.x_px, std::max(requests[i].x1_px, left) + 1e-9) << k;
      EXPECT_LE(std::max(requests[i].x0_px, left), l.right_px() + gap + 1e-9) << k;
    }
  }
}

TEST(SpanLabels, OneLineEachAtItsSpanNamedOnce) {
  const std::vector<SpanLabelRequest> requests = {{100, 120, 200, 150, 60, 0},
                                                  {400, 410, 200, 150, 60, 1},
                                                  {450, 460, 200, 150, 60, 0} /* finding 0 again: not named twice */,
                                                  {1550, 1560, 300, 250, 60, 2}};
  const auto labels = layout_span_labels(requests, 0, 1600);
  expect_one_line(requests, labels, 0, 1600, 8);
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0].x_px, 100);
  EXPECT_EQ(labels[0].width_px, 200);  // whole: the next label starts at 400
  EXPECT_EQ(labels[0].requests, std::vector<std::size_t>{0});
  EXPECT_EQ(labels[1].x_px, 400);
  EXPECT_EQ(labels[1].requests, std::vector<std::size_t>{1});
  EXPECT_DOUBLE_EQ(labels[2].right_px(), 1600);  // 1550 + 300 would be clipped at 1600: shifted left, whole
  EXPECT_DOUBLE_EQ(labels[2].width_px, 300);
}

TEST(SpanLabels, CrowdedNamesShortenThenMerge) {
  // 150 px apart: the first is shortened to the room (wider than its narrowest); 30 px apart: merged.
  const std::vector<SpanLabelRequest> requests = {
      {100, 110, 300, 200, 60, 0}, {250, 260, 300, 200, 60, 1}, {280, 290, 300, 200, 60, 2}};
  const auto labels = layout_span_labels(requests, 0, 1600);
  expect_one_line(requests, labels, 0, 1600, 8);
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_DOUBLE_EQ(labels[0].width_px, 142);
  EXPECT_EQ(labels[1].requests, (std::vector<std::size_t>{1, 2}));
  EXPECT_DOUBLE_EQ(labels[1].width_px, 500);  // the name and the merged tail
}

TEST(SpanLabels, ANameWiderThanThePlotTakesItsWidthAndSpansBeforeTheViewMerge) {
  const std::vector<SpanLabelRequest> requests = {{-50, 20, 900, 600, 60, 0}, {-10, 30, 100, 80, 60, 1}};
  const auto labels = layout_span_labels(requests, 0, 500);
  expect_one_line(requests, labels, 0, 500, 8);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].x_px, 0);
  EXPECT_EQ(labels[0].width_px, 500);
  EXPECT_EQ(labels[0].requests.size(), 2u);
}

TEST(SpanLabels, RandomSpansStayOnOneLineNextToTheirSpans) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> start(-200, 1800), length(0, 300), width(40, 500);
  std::uniform_int_distribution<int> count(1, 40), groups(1, 12);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<SpanLabelRequest> requests;
    const int n = count(rng), g = groups(rng);
    for (int i = 0; i < n; ++i) {
      const double x0 = start(rng), full = width(rng);
      requests.push_back(
          {x0, x0 + length(rng), full, full - 30, std::min(full, 60.0), static_cast<std::size_t>(i % g)});
    }
    const auto labels = layout_span_labels(requests, 240, 1600);
    expect_one_line(requests, labels, 240, 1600, 8);
    std::size_t named = 0;
    for (const auto& l : labels) named += l.requests.size();
    std::vector<bool> seen(static_cast<std::size_t>(g), false);
    for (const auto& r : requests)
      if (r.x1_px >= 240 && r.x0_px <= 1600) seen[r.group] = true;
    EXPECT_EQ(named, static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true)));
  }
}

}  // namespace
}  // namespace gtv::ui
