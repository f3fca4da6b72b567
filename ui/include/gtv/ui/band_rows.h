#pragma once
// The bands: rows placed across the plot above the lanes (the measurement brackets) or below them (the warm-up
// labels, the GPUs-busy strip, one idle-cause row per GPU), drawn from the analysis (OverlayData). They are
// TimelineRows like any other: RowDesc says where they go and how they give way where the plot is short
// (fit_bands), band_size the room they want, draw and tooltip_under what they show. Their pictures and the
// geometry their painters and tooltips share are here.
#include <QFontMetricsF>
#include <QLineF>
#include <QRectF>
#include <QString>
#include <optional>
#include <utility>
#include <vector>

#include "gtv/ui/kind_columns.h"
#include "gtv/ui/label_layout.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

struct TimelineState;

// The band rows' ids (RowDesc::id).
inline const std::string kBracketRowId = "band brackets";
inline const std::string kWarmupLabelRowId = "band warm-up labels";
inline const std::string kBusyStripRowId = "band GPUs busy";
inline const std::string kIdleRowId = "band idle by cause";

// The bands the overlays hold, in the order they stack (brackets above the lanes; warm-up labels, GPUs-busy strip,
// idle rows below). They point into o: it must outlive them.
void add_band_rows(const OverlayData& o, TimelineRows& rows);

// Where a row's name starts in the label column: group headers at the edge, rows under them indented (less in a
// figure, which has no triangles to make room for).
[[nodiscard]] double label_indent_px(bool header, bool figure, double font_scale);

// The busy-count steps of o.busy_gpus as runs (step i lasts until step i + 1; its kind is its count, at most
// o.gpu_count), summarised for drawing by pixel column.
[[nodiscard]] KindRun busy_run_at(const OverlayData& o, std::size_t i);
[[nodiscard]] KindColumns busy_kind_columns(const OverlayData& o);

// Measurement brackets above the lanes: rows and labels as drawn, shared by the painter and the tooltip.
inline constexpr double kBracketLabelPadPx = 4;
[[nodiscard]] int bracket_row_count(const OverlayData& o);
// The bracket rows the view's height gave the brackets' band (0: none).
[[nodiscard]] int bracket_rows_given(const TimelineState& state);
// Height of the line under the lanes where warm-up spans are named (0 without warm-up in view).
[[nodiscard]] double warmup_label_band_px(const TimelineState& state);
// A warm-up name as drawn on that line: its rectangle, its text (elided to the rectangle; names merged where their
// spans start too close for each its own), and the visible pixel span of each finding it names.
struct WarmupLabel {
  QRectF rect;
  QString text;
  std::vector<std::pair<double, double>> spans_px;
};
inline constexpr double kWarmupLabelPt = 8;
// The labels on the warm-up label band `band` (its rectangle in plot pixels, as wide as the lanes).
[[nodiscard]] std::vector<WarmupLabel> warmup_labels(const TimelineState& state, const QFontMetricsF& metrics,
                                                     const QRectF& band);
// The brackets' labels in a bracket band `area` (in plot pixels, as wide as the lanes) of `rows` rows.
[[nodiscard]] std::vector<LabelPlacement> bracket_placements(const TimelineState& state, const QFontMetricsF& metrics,
                                                             const QRectF& area, int rows);
// A bracket as drawn: its line at line_px from x0_px to x1_px with feet down to foot_px; its label (empty: none)
// and the label's text; a leader line from a label beside the bracket (not under it) to the bracket's nearer foot.
struct BracketShape {
  std::size_t bracket = 0;  // index into OverlayData::brackets
  double x0_px = 0;
  double x1_px = 0;
  double line_px = 0;
  double foot_px = 0;
  QRectF label;
  QString text;
  std::optional<QLineF> leader;
};
[[nodiscard]] std::vector<BracketShape> bracket_shapes(const TimelineState& state, const QFontMetricsF& metrics,
                                                       const QRectF& area, int rows);
// The label as it fits width_px: whole, else the name cut after its last word that fits ("first matmul\u2026 \u2014
// stopwatch 3.00 ms") down to its first word, else the same with the number alone ("first\u2026 \u2014 3.00 ms": the
// colour names the method), else (narrower than a label is ever given) that with its middle elided. Never the
// figure without the name.
[[nodiscard]] QString bracket_label_text(const Bracket& b, const QFontMetricsF& metrics, double width_px);

}  // namespace gtv::ui
