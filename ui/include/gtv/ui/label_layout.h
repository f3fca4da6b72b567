#pragma once
// Rows for the measurement brackets drawn above the lanes and for their labels, kept out of the painter so it can
// be unit tested. A bracket and its label share one row: the bracket's line across the row's top, its label under
// the line. Two brackets share a row only when what each occupies (its span and its label) is apart, so no label
// meets another label or another bracket's line, and every label lies inside the plot.
#include <cstddef>
#include <span>
#include <vector>

namespace gtv::ui {

struct LabelRequest {
  double x0_px = 0;  // the bracket's pixel span (may reach outside the plot)
  double x1_px = 0;
  double full_px = 0;  // width of the whole label ("first matmul N=4 on cuda:0 - stopwatch 56.6 ms")
  double min_px = 0;   // narrowest useful width (the name elided to a few characters, the number whole)
};

struct LabelPlacement {
  int row = -1;         // -1: the bracket is outside the plot or no row has room for it
  double x_px = 0;      // label's left edge
  double width_px = 0;  // 0: the bracket is drawn without a label; < full_px: the name is elided
  [[nodiscard]] bool labelled() const { return row >= 0 && width_px > 0; }
  [[nodiscard]] double right_px() const { return x_px + width_px; }
};

// First the rows: each bracket, left to right, takes the row free the longest of those where it fits (brackets may
// touch), so brackets spread over the row_count rows; brackets deeper than that get no row. Then the labels, each
// in its bracket's row: the whole label if it can, else narrowed to the room beside or under its bracket (never
// under min_px), else none.
// A label starts at its bracket (inset by inset_px), else ends at the bracket's end where the bracket is wider than
// it, else ends leader_px before the bracket's start (the painter joins them with a leader line), and is pushed to
// lie inside [left_px, right_px]; a label wider than the plot takes its width. A label may touch a bracket's foot
// (its rectangle has its own padding); labels keep gap_px from each other.
[[nodiscard]] std::vector<LabelPlacement> layout_bracket_labels(std::span<const LabelRequest> requests, double left_px,
                                                                double right_px, int row_count, double inset_px = 4,
                                                                double gap_px = 4, double leader_px = 12);

// Labels of shaded spans (warm-up) on one line under the lanes, each next to its span. Each group (a finding) is
// named once, at its first request (its first visible span). A label starts at its span's visible start and runs
// right up to the next label (gap_px apart), shortened to that room; where the next span starts so close that this
// label would have less than min_px, the two are merged into one label (the later name appended as its tail), so
// labels never stack and never stray from their spans. The last label is shifted left, never over the label before
// it, so that it ends inside right_px.
struct SpanLabelRequest {
  double x0_px = 0;     // the span's visible start
  double x1_px = 0;     // its visible end
  double width_px = 0;  // the whole name, alone ("warm-up: module loading (GPU 0)")
  double tail_px = 0;   // the name following another in a merged label (", module loading (GPU 0)")
  double min_px = 0;    // the narrowest readable label: the name elided to a few characters
  std::size_t group = 0;
};
struct SpanLabel {
  double x_px = 0;
  double width_px = 0;                // < the whole name: the name is elided to this width
  std::vector<std::size_t> requests;  // the requests it names, by start; several when names merged
  [[nodiscard]] double right_px() const { return x_px + width_px; }
};
[[nodiscard]] std::vector<SpanLabel> layout_span_labels(std::span<const SpanLabelRequest> requests, double left_px,
                                                        double right_px, double gap_px = 8);

}  // namespace gtv::ui
