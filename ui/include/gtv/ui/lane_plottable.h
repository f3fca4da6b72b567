#pragma once
// The one plottable that draws the lane area: the row backgrounds, the iteration marks, then every visible row
// (TimelineRow::draw) and the summaries of collapsed groups. An event lane draws only what gtv::query_lod finds
// visible at the current pixel width, so cost follows the pixels on screen, not the events in the trace.
#include <qcustomplot.h>

#include <optional>
#include <vector>

#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/timeline_state.h"

namespace gtv::ui {

class LanePlottable : public QCPAbstractPlottable {
  Q_OBJECT
 public:
  LanePlottable(QCPAxis* key_axis, QCPAxis* value_axis, const TimelineState* state);

  double selectTest(const QPointF& pos, bool only_selectable, QVariant* details = nullptr) const override;
  QCPRange getKeyRange(bool& found_range, QCP::SignDomain domain = QCP::sdBoth) const override;
  QCPRange getValueRange(bool& found_range, QCP::SignDomain domain = QCP::sdBoth,
                         const QCPRange& key_range = QCPRange()) const override;
  // Spans drawn in the last paint (for tests and the benchmark).
  [[nodiscard]] std::size_t last_span_count() const { return cache_.span_count; }
  // The text drawn on an event (RowDrawCache::label_of).
  [[nodiscard]] const QString& label_of(const Event& e) const { return cache_.label_of(*state_->trace, e); }

 protected:
  void draw(QCPPainter* painter) override;
  void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

 private:
  struct RowGeometry {
    QRectF lane_area;
    double y_top = 0;
  };
  void draw_row_background(QCPPainter* painter, const LaneRow& row, int row_number, const RowGeometry& g) const;
  void draw_group_summary(QCPPainter* painter, const LaneRow& row, const RowGeometry& g) const;

  const TimelineState* state_;
  mutable RowDrawCache cache_;  // the rows' scratch space, kept across paints
};

}  // namespace gtv::ui
