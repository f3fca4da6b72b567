#pragma once
// Layers drawn around and over the lanes: the lane name header left of the lanes, and the overlays (analysis
// bands, iteration marks, selection, flow arrow, measured range, box-zoom rectangle) on top.
#include <qcustomplot.h>

#include <vector>

#include "gtv/ui/label_layout.h"
#include "gtv/ui/timeline_state.h"

namespace gtv::ui {

// Time axis labels in ns/us/ms/s chosen from the visible span, exact, from a base at fine zoom (AxisLabeling).
class TimeTicker : public QCPAxisTicker {
 public:
  TimeTicker() = default;
  // Labels count from origin_ns (the trace start).
  void set_origin_ns(TimeNs origin_ns) { origin_ns_ = origin_ns; }

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format_char, int precision) override;
  QVector<double> createTickVector(double tick_step, const QCPRange& range) override;

 private:
  TimeNs origin_ns_ = 0;
  AxisLabeling labeling_;          // of the ticks of the last createTickVector
  double first_visible_tick_ = 0;  // ns since the origin
};

// Where a row's name starts in the label column: group headers at the edge, rows under them indented (less in a
// figure, which has no triangles to make room for).
[[nodiscard]] double label_indent_px(bool header, bool figure, double font_scale);
// A row name in width_px: whole if it fits, else elided in the middle, so the end that tells rows apart stays
// ("device memory al…since start (bytes)", "recorded ranges (t…1741)"); the triangle prefix is never elided.
[[nodiscard]] QString header_label_text(const QString& prefix, const QString& label, double width_px,
                                        const QFontMetricsF& metrics);

class LaneHeaders : public QCPLayerable {
  Q_OBJECT
 public:
  LaneHeaders(QCustomPlot* plot, const TimelineState* state, QCPAxisRect* axis_rect);

 protected:
  void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
  void draw(QCPPainter* painter) override;

 private:
  const TimelineState* state_;
  QCPAxisRect* axis_rect_;
};

class TimelineOverlays : public QCPLayerable {
  Q_OBJECT
 public:
  TimelineOverlays(QCustomPlot* plot, const TimelineState* state, QCPAxisRect* axis_rect);

 protected:
  void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
  void draw(QCPPainter* painter) override;

 private:
  void draw_bands(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  void draw_brackets(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  void draw_warmup(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  void draw_overlap_strip(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  void draw_idle_rows(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  void draw_selection(QCPPainter* painter, const TimeMapping& map, const QRectF& lanes) const;
  void draw_measure(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  [[nodiscard]] std::optional<QRectF> event_rect(EventRef ref, const TimeMapping& map, const QRectF& lanes) const;

  const TimelineState* state_;
  QCPAxisRect* axis_rect_;
};

// Measurement brackets above the lanes: rows and labels as drawn, shared by the painter and the tooltip.
inline constexpr double kBracketLabelPadPx = 4;
[[nodiscard]] int bracket_row_count(const OverlayData& o);
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
[[nodiscard]] std::vector<WarmupLabel> warmup_labels(const TimelineState& state, const QFontMetricsF& metrics,
                                                     const QRectF& area);
[[nodiscard]] std::vector<LabelPlacement> bracket_placements(const TimelineState& state, const QFontMetricsF& metrics,
                                                             const QRectF& area);
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
                                                       const QRectF& area);
// The label as it fits width_px: whole, else the name cut after its last word that fits ("first matmul\u2026 \u2014
// stopwatch 3.00 ms") down to its first word, else the same with the number alone ("first\u2026 \u2014 3.00 ms": the
// colour names the method), else (narrower than a label is ever given) that with its middle elided. Never the
// figure without the name.
[[nodiscard]] QString bracket_label_text(const Bracket& b, const QFontMetricsF& metrics, double width_px);

// The measured span's label (its exact length): where it goes, never over a bracket or a bracket label.
inline constexpr double kMeasureLabelPt = 9;
[[nodiscard]] QString measure_label_text(const TimelineState& state);
[[nodiscard]] QRectF measure_label_rect(const TimelineState& state, const QRectF& area);
// What the brackets above the lanes occupy: each bracket's line with its feet, and its label.
[[nodiscard]] std::vector<QRectF> bracket_boxes(const TimelineState& state, const QRectF& area);

}  // namespace gtv::ui
