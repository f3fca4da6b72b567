#pragma once
// Layers drawn around and over the lanes: the lane name header left of the lanes, and the overlays (analysis
// bands, iteration marks, selection, flow arrow, measured range, box-zoom rectangle) on top.
#include <qcustomplot.h>

#include <vector>

#include "gtv/ui/band_rows.h"
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
  void draw_warmup_shading(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  void draw_iteration_marks(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  // The bands that are given room whose RowDesc::under_marks is `under_marks`, in row order.
  void draw_band_rows(QCPPainter* painter, const TimeMapping& map, const QRectF& area, bool under_marks) const;
  void draw_selection(QCPPainter* painter, const TimeMapping& map, const QRectF& lanes) const;
  void draw_measure(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const;
  [[nodiscard]] std::optional<QRectF> event_rect(EventRef ref, const TimeMapping& map, const QRectF& lanes) const;

  const TimelineState* state_;
  QCPAxisRect* axis_rect_;
};

// The measured span's label (its exact length): where it goes, never over a bracket or a bracket label.
inline constexpr double kMeasureLabelPt = 9;
[[nodiscard]] QString measure_label_text(const TimelineState& state);
[[nodiscard]] QRectF measure_label_rect(const TimelineState& state, const QRectF& area);
// What the brackets above the lanes occupy (as their band was given room): each bracket's line with its feet, and
// its label.
[[nodiscard]] std::vector<QRectF> bracket_boxes(const TimelineState& state, const QRectF& area);

}  // namespace gtv::ui
