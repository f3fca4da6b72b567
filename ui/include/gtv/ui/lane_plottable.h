#pragma once
// The one plottable that draws every visible lane. It asks gtv::query_lod what is visible in the window at the
// current pixel width and draws only that: single events as named rectangles, merged sub-pixel runs as hatched
// blocks. Cost follows the pixels on screen, not the events in the trace.
#include <qcustomplot.h>

#include <optional>
#include <vector>

#include "gtv/model/lod.h"
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
  [[nodiscard]] std::size_t last_span_count() const { return last_span_count_; }
  // The text drawn on an event: a kernel by its base name ("Kernel2<cutlass_80_simt_sgemm_...>"), the full name
  // being in its tooltip and details. Made once per name, not per event and replot.
  [[nodiscard]] const QString& label_of(const Event& e) const;

 protected:
  void draw(QCPPainter* painter) override;
  void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

 private:
  struct RowGeometry {
    QRectF lane_area;
    double y_top = 0;
    double left = 0;
  };
  void draw_row_background(QCPPainter* painter, const LaneRow& row, int row_number, const RowGeometry& g) const;
  void draw_group_summary(QCPPainter* painter, const LaneRow& row, const RowGeometry& g) const;
  void draw_lane(QCPPainter* painter, const LaneRow& row, const TimeMapping& map, const RowGeometry& g);
  // One event (named rectangle) or merged block (darker fill, hatched unless hatch is false) in the colour rgb.
  void draw_span(QCPPainter* painter, const Lane& lane, const LodSpan& span, const QRectF& r, Rgb rgb,
                 bool hatch) const;
  // A merged block's fill: in the owner mode its majority owner's colour (kMixedOwnersColor when mixed), else
  // its first event's colour. several_owners: whether the sampled events have more than one owner (then the
  // block is drawn as owner stripes over that fill).
  [[nodiscard]] Rgb block_color(LaneIndex lane_index, const Lane& lane, const LodSpan& span,
                                bool* several_owners = nullptr) const;
  void draw_owner_stripes(QCPPainter* painter, LaneIndex lane_index, const Lane& lane, const LodSpan& span,
                          const QRectF& r, const TimeMapping& map, double left) const;
  [[nodiscard]] bool block_has_match(const Lane& lane, const LodSpan& span) const;

  const TimelineState* state_;
  QBrush block_hatch_;                 // the hatching of merged blocks
  std::vector<QColor> stripe_colors_;  // per owner: its stripe colour (made once per paint, not per fill)
  std::vector<LodSpan> spans_;         // reused across paints
  std::size_t last_span_count_ = 0;
  mutable const Trace* labels_trace_ = nullptr;                // the trace label_of's caches belong to
  mutable std::vector<std::optional<QString>> name_labels_;    // per StringId: the name as written
  mutable std::vector<std::optional<QString>> kernel_labels_;  // per StringId: the kernel's base name
};

}  // namespace gtv::ui
