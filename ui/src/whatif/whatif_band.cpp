#include "gtv/ui/whatif_band.h"

#include <qcustomplot.h>

#include <QPainter>
#include <algorithm>

#include "gtv/ui/timeline_view.h"
#include "gtv/ui/whatif_view.h"

namespace gtv::ui {
namespace {

// As the panels' headers: the prediction orange, the recording grey, the recording of the variant blue.
const QColor kPredicted(0xe0, 0x8a, 0x00);
const QColor kVariant(0x2f, 0x6f, 0xb0);
const QColor kRecorded(0x60, 0x60, 0x60);

}  // namespace

BandMarks band_marks(const whatif::Prediction& p, std::optional<TimeNs> variant_ns) {
  return {p.low_ns, p.predicted_ns, p.high_ns, p.recorded_ns, variant_ns};
}

QString band_meaning(const whatif::Prediction& p) {
  const QString recorded = whatif_ms(p.recorded_ns);
  if (p.high_ns < p.recorded_ns)
    return QObject::tr(
               "The whole band ends before the recorded end (%1): the change is predicted faster even under its "
               "least favourable assumptions.")
        .arg(recorded);
  if (p.low_ns > p.recorded_ns)
    return QObject::tr(
               "The whole band ends after the recorded end (%1): the change is predicted slower even under its most "
               "favourable assumptions.")
        .arg(recorded);
  return QObject::tr(
             "The band reaches the recorded end (%1): the prediction cannot rule out that the change saves nothing.")
      .arg(recorded);
}

int band_lines(const BandMarks& marks) { return marks.variant_ns ? 4 : 3; }

void paint_band(QPainter& p, const QRectF& area, const QRectF& time_area, TimeWindow axis_window, const BandMarks& m,
                const Theme& theme) {
  const QFont font = theme.font(8);
  const QFontMetricsF metrics(font, p.device());
  const double line = metrics.lineSpacing();
  const double top = area.top() + 2;
  const auto row = [&](int i) { return QRectF(area.left(), top + i * line, area.width(), line); };
  const double span = static_cast<double>(std::max<TimeNs>(1, axis_window.t1_ns - axis_window.t0_ns));
  const auto x_of = [&](TimeNs t) {
    const double x = time_area.left() + static_cast<double>(t - axis_window.t0_ns) / span * time_area.width();
    return std::clamp(x, time_area.left(), time_area.right());
  };
  p.setFont(font);
  // The names, in the label column.
  const double pad = 6 * theme.font_scale;
  const auto name = [&](int i, const QString& text, const QColor& color) {
    p.setPen(color);
    const QRectF r(area.left(), row(i).top(), time_area.left() - area.left() - pad, line);
    p.drawText(r, Qt::AlignRight | Qt::AlignVCenter, metrics.elidedText(text, Qt::ElideLeft, r.width()));
  };
  name(0, QObject::tr("predicted end"), theme.text);
  name(1, QObject::tr("band"), theme.text);
  name(2, QObject::tr("recorded end"), theme.text);
  if (m.variant_ns) name(3, QObject::tr("recorded variant's end"), theme.text);
  // A label beside its mark (or span x0..x1): right of it where it fits, else left; on the background, so a mark's
  // line that passes under it never crosses its text.
  const auto label = [&](int i, double x0, double x1, const QString& text, const QColor& color) {
    const double w = metrics.horizontalAdvance(text) + 4;
    const QRectF r = x1 + pad + w <= time_area.right()
                         ? QRectF(x1 + pad, row(i).top(), w, line)
                         : QRectF(std::max(time_area.left(), x0 - pad - w), row(i).top(), w, line);
    p.fillRect(r, theme.background);
    p.setPen(color);
    p.drawText(r, Qt::AlignCenter, text);
  };
  // The band: the predicted end's range, the point estimate in it.
  const double x_low = x_of(m.low_ns), x_high = x_of(m.high_ns), x_pred = x_of(m.predicted_ns);
  const QRectF bar(x_low, row(1).top() + line * 0.2, std::max(2.0, x_high - x_low), line * 0.6);
  QColor fill = kPredicted;
  fill.setAlpha(90);
  p.fillRect(bar, fill);
  p.setPen(QPen(kPredicted, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar);
  p.setPen(QPen(kPredicted.darker(130), 2.5 * theme.font_scale));
  p.drawLine(QPointF(x_pred, row(0).top() + 2), QPointF(x_pred, row(1).bottom()));
  label(0, x_pred, x_pred, whatif_ms(m.predicted_ns), kPredicted.darker(150));
  label(1, x_low, x_high, QObject::tr("%1 to %2").arg(whatif_ms(m.low_ns), whatif_ms(m.high_ns)),
        kPredicted.darker(150));
  // The recorded end (and the recording of the variant's), down from the band.
  const QColor recorded = theme.background.lightness() < 128 ? QColor(0xb0, 0xb0, 0xb0) : kRecorded;
  const double x_rec = x_of(m.recorded_ns);
  p.setPen(QPen(recorded, 2 * theme.font_scale, Qt::DashLine));
  p.drawLine(QPointF(x_rec, row(1).top()), QPointF(x_rec, row(2).bottom() - 2));
  label(2, x_rec, x_rec, whatif_ms(m.recorded_ns), recorded);
  if (m.variant_ns) {
    const double x_var = x_of(*m.variant_ns);
    p.setPen(QPen(kVariant, 2 * theme.font_scale));
    p.drawLine(QPointF(x_var, row(1).top()), QPointF(x_var, row(3).bottom() - 2));
    label(3, x_var, x_var, whatif_ms(*m.variant_ns), kVariant);
  }
}

BandStrip::BandStrip(QWidget* parent) : QWidget(parent) { setVisible(false); }

void BandStrip::set_band(const BandMarks& marks, const TimelineView* view, TimeNs axis_origin_ns) {
  marks_ = marks;
  if (view != view_ && view != nullptr) {
    // The strip follows the panel's zoom, pan and label column.
    connect(view, &TimelineView::window_changed, this, [this] { update(); });
    connect(view, &TimelineView::lanes_changed, this, [this] { update(); });
  }
  view_ = view;
  axis_origin_ns_ = axis_origin_ns;
  setVisible(view != nullptr);
  updateGeometry();
  update();
}

void BandStrip::set_theme(const Theme& theme) {
  theme_ = theme;
  updateGeometry();
  update();
}

QSize BandStrip::sizeHint() const {
  const QFontMetricsF metrics(theme_.font(8));
  return {200, static_cast<int>(std::ceil(band_lines(marks_) * metrics.lineSpacing())) + 4};
}

void BandStrip::paintEvent(QPaintEvent* /*event*/) {
  if (view_ == nullptr) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  // The first panel's time axis, in this widget's coordinates.
  const QRect axis = view_->plot()->axisRect()->rect();
  QWidget* ancestor = parentWidget();
  const QPoint left = mapFrom(ancestor, view_->plot()->mapTo(ancestor, axis.topLeft()));
  const QRectF time_area(left.x(), 0, axis.width(), height());
  const TimeWindow w = view_->window();
  paint_band(p, QRectF(rect()), time_area, TimeWindow{w.t0_ns - axis_origin_ns_, w.t1_ns - axis_origin_ns_}, marks_,
             theme_);
}

}  // namespace gtv::ui
