#include "gtv/ui/counter_row.h"

#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

#include "gtv/analysis/format.h"
#include "gtv/ui/event_text.h"

namespace gtv::ui {
namespace {

bool is_bytes(const CounterSeries& series) { return series.name.find("bytes") != std::string::npos; }

// Samples are sorted by time: the first one after t_ns.
std::vector<CounterSample>::const_iterator first_after(const CounterSeries& series, TimeNs t_ns) {
  return std::upper_bound(series.samples.begin(), series.samples.end(), t_ns,
                          [](TimeNs t, const CounterSample& s) { return t < s.time_ns; });
}

}  // namespace

std::optional<CounterSample> counter_sample_at(const CounterSeries& series, TimeNs t_ns) {
  const auto it = first_after(series, t_ns);
  if (it == series.samples.begin()) return std::nullopt;
  return *std::prev(it);
}

std::vector<double> counter_column_max(const CounterSeries& series, TimeWindow window, int columns) {
  std::vector<double> out(static_cast<std::size_t>(std::max(columns, 0)), std::numeric_limits<double>::quiet_NaN());
  if (out.empty() || window.span_ns() <= 0) return out;
  const double ns_per_column = static_cast<double>(window.span_ns()) / columns;
  // The value in force at the window's start fills the columns until the next sample.
  auto it = first_after(series, window.t0_ns);
  double current = it == series.samples.begin() ? std::numeric_limits<double>::quiet_NaN() : std::prev(it)->value;
  for (int c = 0; c < columns; ++c) {
    const auto column_end =
        static_cast<TimeNs>(std::floor(static_cast<double>(window.t0_ns) + (c + 1) * ns_per_column));
    double high = current;
    for (; it != series.samples.end() && it->time_ns < column_end; ++it) {
      current = it->value;
      high = std::isnan(high) ? current : std::max(high, current);
    }
    out[static_cast<std::size_t>(c)] = high;
  }
  return out;
}

std::string counter_value_text(const CounterSeries& series, double value) {
  if (is_bytes(series) && std::fabs(value) < 9.0e18) return format_bytes(static_cast<std::int64_t>(value));
  return analysis::fixed(value, value == std::floor(value) ? 0 : 3);
}

CounterRow::CounterRow(const CounterSeries& series, GroupKey group) : series_(&series), group_(group) {
  for (const CounterSample& s : series.samples) max_value_ = std::max(max_value_, s.value);
}

RowDesc CounterRow::desc() const {
  RowDesc d;
  d.group = group_;
  d.place = RowPlace::Bottom;
  d.id = "counter " + std::to_string(series_->pid) + "/" + series_->name;
  d.label = series_->name;
  d.depth_rows = 1;  // one row: the GPU lanes, the story, stay in view
  d.gives_way_to_gpus = true;
  return d;
}

void CounterRow::draw(const RowPaint& p) const {
  if (series_->samples.empty()) return;
  QPainter& painter = *p.painter;
  const int columns = std::max(1, static_cast<int>(std::ceil(p.rect.width())));
  const std::vector<double> high = counter_column_max(*series_, p.map->window(), columns);
  const double scale = max_value_ > 0 ? (p.rect.height() - 3) / max_value_ : 0;
  const QColor fill = p.theme->dark ? QColor(0x3b, 0x55, 0x78) : QColor(0xa9, 0xbf, 0xdc);
  const QColor edge = p.theme->dark ? QColor(0x9f, 0xbf, 0xe8) : QColor(0x4a, 0x6c, 0x98);
  // Columns of equal value are one rectangle (a step chart is flat between samples), each with its top edge; all
  // drawn in two batched calls, so a dense series costs two draw calls, not two per pixel column.
  std::vector<QRect> bars, edges;
  bars.reserve(static_cast<std::size_t>(columns));
  edges.reserve(static_cast<std::size_t>(columns));
  int run_start = 0;
  for (int c = 1; c <= columns; ++c) {
    const double v = high[static_cast<std::size_t>(run_start)];
    if (c < columns) {
      const double next = high[static_cast<std::size_t>(c)];
      if (next == v || (std::isnan(v) && std::isnan(next))) continue;
    }
    if (!std::isnan(v)) {
      const double h = std::max(std::max(v, 0.0) * scale, 1.0);
      bars.push_back(pixel_rect(QRectF(p.rect.left() + run_start, p.rect.bottom() - h, c - run_start, h)));
      edges.push_back(pixel_rect(QRectF(p.rect.left() + run_start, p.rect.bottom() - h, c - run_start, 1.0)));
    }
    run_start = c;
  }
  painter.save();
  painter.setPen(Qt::NoPen);
  painter.setBrush(fill);
  painter.drawRects(bars.data(), static_cast<int>(bars.size()));
  painter.setBrush(edge);
  painter.drawRects(edges.data(), static_cast<int>(edges.size()));
  painter.restore();
  // The scale: the series' highest value, at the row's top right, on the background so it reads over the chart.
  painter.save();
  const QString top = QStringLiteral("max %1").arg(QString::fromStdString(counter_value_text(*series_, max_value_)));
  const QFontMetricsF metrics(painter.font());
  const double text_w = metrics.horizontalAdvance(top) + 8;
  const QRectF label(p.rect.right() - text_w - 2, p.rect.top(), text_w, metrics.height());
  QColor backdrop = p.theme->background;
  backdrop.setAlpha(200);
  painter.fillRect(label, backdrop);
  painter.setPen(p.theme->text);
  painter.drawText(label, Qt::AlignCenter, top);
  painter.restore();
}

QString CounterRow::tooltip_at(TimeNs t_ns, int, TimeNs, TimeNs origin_ns) const {
  const auto sample = counter_sample_at(*series_, t_ns);
  if (!sample) return {};
  return QString::fromStdString(series_->name + "\n" + counter_value_text(*series_, sample->value) + "\nsince " +
                                format_duration_exact(sample->time_ns - origin_ns) + " (the sample in force here)");
}

bool CounterRow::has_content_in(TimeNs t0_ns, TimeNs t1_ns) const {
  if (const auto at_start = counter_sample_at(*series_, t0_ns); at_start && at_start->value != 0) return true;
  const auto& samples = series_->samples;
  auto it = std::lower_bound(samples.begin(), samples.end(), t0_ns,
                             [](const CounterSample& s, TimeNs t) { return s.time_ns < t; });
  for (; it != samples.end() && it->time_ns < t1_ns; ++it)
    if (it->value != 0) return true;
  return false;
}

}  // namespace gtv::ui
