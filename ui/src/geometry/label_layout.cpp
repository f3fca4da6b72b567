#include "gtv/ui/label_layout.h"

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>

namespace gtv::ui {
namespace {

struct Interval {
  double x0 = 0;
  double x1 = 0;
};

bool meet(const Interval& a, const Interval& b, double gap_px) { return a.x0 < b.x1 + gap_px && b.x0 < a.x1 + gap_px; }

}  // namespace

std::vector<LabelPlacement> layout_bracket_labels(std::span<const LabelRequest> requests, double left_px,
                                                  double right_px, int row_count, double inset_px, double gap_px,
                                                  double leader_px) {
  std::vector<LabelPlacement> out(requests.size());
  if (row_count <= 0 || right_px <= left_px) return out;
  const double plot_px = right_px - left_px;
  auto bracket_of = [&](std::size_t i) {
    return Interval{std::max(requests[i].x0_px, left_px), std::min(requests[i].x1_px, right_px)};
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < requests.size(); ++i)
    if (requests[i].x1_px >= left_px && requests[i].x0_px <= right_px) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return requests[a].x0_px < requests[b].x0_px; });

  // Rows first, for the brackets alone: each takes, of the rows where it fits, the one free the longest, so
  // brackets spread over the rows and leave their labels room on both sides. Brackets may touch.
  std::vector<double> row_end(static_cast<std::size_t>(row_count), -1e300);
  std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(row_count));
  for (const std::size_t i : order) {
    const Interval b = bracket_of(i);
    std::size_t best = rows.size();
    for (std::size_t row = 0; row < rows.size(); ++row)
      if (row_end[row] <= b.x0 && (best == rows.size() || row_end[row] < row_end[best])) best = row;
    if (best == rows.size()) continue;  // deeper than row_count: not drawn
    row_end[best] = b.x1;
    rows[best].push_back(i);
    out[i] = {static_cast<int>(best), b.x0, 0};
  }

  // Then labels, left to right, each in its bracket's row: the whole label if it can, else narrowed to the
  // bracket's width, else to min_px; under the bracket from its start, else ending at its end and reaching left.
  std::vector<std::vector<Interval>> labels(rows.size());
  auto fits = [&](std::size_t row, std::size_t self, Interval label) {
    for (const std::size_t j : rows[row])
      if (j != self && meet(bracket_of(j), label, 0)) return false;
    return std::none_of(labels[row].begin(), labels[row].end(),
                        [&](const Interval& other) { return meet(other, label, gap_px); });
  };
  for (const std::size_t i : order) {
    if (out[i].row < 0) continue;
    const auto row = static_cast<std::size_t>(out[i].row);
    const LabelRequest& r = requests[i];
    const Interval bracket = bracket_of(i);
    // The free room on either side of the bracket in its row, for a label shortened just enough to fit there.
    double free_left = left_px, free_right = right_px;
    for (const std::size_t j : rows[row]) {
      const Interval other = bracket_of(j);
      if (j != i && other.x1 <= bracket.x1) free_left = std::max(free_left, other.x1);
      if (j != i && other.x0 >= bracket.x0) free_right = std::min(free_right, other.x0);
    }
    for (const Interval& other : labels[row]) {
      if (other.x1 <= bracket.x1) free_left = std::max(free_left, other.x1 + gap_px);
      if (other.x0 >= bracket.x0) free_right = std::min(free_right, other.x0 - gap_px);
    }
    auto shortened = [&](double room_px) { return std::clamp(room_px, std::min(r.min_px, r.full_px), r.full_px); };
    std::array<double, 6> widths = {r.full_px,
                                    shortened(free_right - bracket.x0 - inset_px),
                                    shortened(bracket.x1 - inset_px - free_left),
                                    shortened(bracket.x0 - leader_px - free_left),
                                    shortened(bracket.x1 - bracket.x0 - inset_px),
                                    std::min(r.full_px, r.min_px)};
    std::sort(widths.begin(), widths.end(), std::greater<>());  // the least shortened label that fits
    bool placed = false;
    for (const double wanted_px : widths) {
      const double width = std::min(wanted_px, plot_px);
      if (width <= 0) continue;
      // Under the bracket from its start; else ending at its end, where the bracket is wide enough to hold it,
      // or ending leader_px before the bracket (a leader line joins them).
      const bool beside = bracket.x1 - bracket.x0 < width + 2 * inset_px;
      const double reaching_left = beside ? bracket.x0 - leader_px - width : bracket.x1 - inset_px - width;
      for (const bool from_start : {true, false}) {
        const double start = from_start ? bracket.x0 + inset_px : reaching_left;
        const double x = std::max(left_px, std::min(start, right_px - width));
        // Beside the bracket, the label keeps the leader's room before it, even where the plot's edge pushes it.
        if (beside && !from_start && x + width > bracket.x0 - leader_px + 1e-9) continue;
        if (placed || !fits(row, i, {x, x + width})) continue;
        labels[row].push_back({x, x + width});
        out[i].x_px = x;
        out[i].width_px = width;
        placed = true;
      }
      if (placed) break;
    }
  }
  return out;
}

std::vector<SpanLabel> layout_span_labels(std::span<const SpanLabelRequest> requests, double left_px, double right_px,
                                          double gap_px) {
  std::vector<SpanLabel> out;
  if (right_px <= left_px) return out;
  // One request per group: its first in the plot.
  std::vector<std::size_t> anchors;
  std::vector<bool> named;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].x1_px < left_px || requests[i].x0_px > right_px) continue;
    const std::size_t group = requests[i].group;
    if (group >= named.size()) named.resize(group + 1, false);
    if (named[group]) continue;
    named[group] = true;
    anchors.push_back(i);
  }
  // A label starts at its span, or early enough to show its narrowest form before the plot's right edge.
  const auto start_of = [&](std::size_t i) {
    return std::max(left_px, std::min(requests[i].x0_px, right_px - requests[i].min_px));
  };
  std::stable_sort(anchors.begin(), anchors.end(),
                   [&](std::size_t a, std::size_t b) { return start_of(a) < start_of(b); });
  // Merged where a span starts within the narrowest label of the one before it.
  std::vector<double> full_px;
  for (const std::size_t i : anchors) {
    if (!out.empty()) {
      SpanLabel& last = out.back();
      if (start_of(i) < last.x_px + requests[last.requests.front()].min_px + gap_px) {
        last.requests.push_back(i);
        full_px.back() += requests[i].tail_px;
        continue;
      }
    }
    out.push_back({start_of(i), 0, {i}});
    full_px.push_back(requests[i].width_px);
  }
  // Each label as wide as its name, up to the next label; the last one shifted left to end inside the plot.
  const double plot_px = right_px - left_px;
  for (std::size_t k = 0; k < out.size(); ++k) {
    SpanLabel& label = out[k];
    const double room_end = k + 1 < out.size() ? out[k + 1].x_px - gap_px : right_px;
    const double previous_end = k > 0 ? out[k - 1].right_px() + gap_px : left_px;
    const double wanted = std::min(full_px[k], plot_px);
    if (k + 1 == out.size() && label.x_px + wanted > room_end) label.x_px = std::max(previous_end, room_end - wanted);
    label.width_px = std::max(0.0, std::min(wanted, room_end - label.x_px));
  }
  return out;
}

}  // namespace gtv::ui
