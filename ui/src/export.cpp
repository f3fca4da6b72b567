#include "gtv/ui/export.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSvgGenerator>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr int kDefaultWidthPx = 1600;
constexpr int kMaxAutoHeightPx = 12000;

bool write_svg(QCustomPlot* plot, const QString& path, int width, int height) {
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(QSize(width, height));
  generator.setViewBox(QRect(0, 0, width, height));
  generator.setTitle(QStringLiteral("gtv timeline"));
  QCPPainter painter;
  if (!painter.begin(&generator)) return false;
  plot->toPainter(&painter, width, height);
  return painter.end();
}

int auto_height(TimelineView& view) {
  view.replot_now();                                                        // lays out, so the axis margins are known
  const double chrome = view.plot()->height() - view.lane_rect().height();  // axes, bands
  return std::clamp(static_cast<int>(std::ceil(view.layout().total_height_px() + chrome)), 200, kMaxAutoHeightPx);
}

bool write_file(TimelineView& view, const QString& suffix, const QString& tmp, const ExportOptions& o, int w, int h) {
  QCustomPlot* plot = view.plot();
  if (suffix == "png") return plot->savePng(tmp, w, h, o.scale);
  if (suffix == "jpg" || suffix == "jpeg") return plot->saveJpg(tmp, w, h, o.scale, o.jpg_quality);
  if (suffix == "pdf") return plot->savePdf(tmp, w, h, QCP::epNoCosmetic, QStringLiteral("gtv"));
  if (suffix == "svg") return write_svg(plot, tmp, w, h);
  return false;
}

}  // namespace

Status export_timeline(TimelineView& view, const ExportOptions& o) {
  const QString suffix = QFileInfo(o.path).suffix().toLower();
  if (suffix != "png" && suffix != "jpg" && suffix != "jpeg" && suffix != "pdf" && suffix != "svg")
    return Error{o.path.toStdString() + ": unknown image format (use .png, .jpg, .pdf or .svg)"};
  if (!(o.scale > 0 && o.scale <= 16)) return Error{"export scale must be in (0, 16]"};
  const TimeWindow old_window = view.window();
  const double old_scroll = view.scroll_px();
  const TimeNs origin = view.trace() ? view.trace()->start_ns() : 0;
  if (o.range)
    view.set_window({o.range->t0_ns + origin, o.range->t1_ns + origin});
  else if (o.whole_trace)
    view.fit();
  if (o.whole_trace) view.set_scroll_px(0);
  const int w = o.width_px > 0 ? o.width_px : kDefaultWidthPx;
  const int h = o.height_px > 0 ? o.height_px : auto_height(view);
  const QString tmp = o.path + QStringLiteral(".part");
  const bool ok = write_file(view, suffix, tmp, o, w, h);
  view.set_window(old_window);
  view.set_scroll_px(old_scroll);
  view.replot_now();
  if (!ok) {
    std::error_code ignored;
    std::filesystem::remove(tmp.toStdString(), ignored);
    return Error{o.path.toStdString() + ": could not write the image"};
  }
  std::error_code ec;
  std::filesystem::rename(tmp.toStdString(), o.path.toStdString(), ec);
  if (ec) return Error{o.path.toStdString() + ": " + ec.message()};
  return ok_status();
}

Expected<TimeNs> parse_time(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) return Error{"'" + std::string(text) + "' is not a time (e.g. 12.5ms)"};
  const std::string_view unit(ptr, static_cast<std::size_t>(end - ptr));
  double ns_per_unit = 0;
  if (unit.empty() || unit == "ms")
    ns_per_unit = 1e6;
  else if (unit == "ns")
    ns_per_unit = 1;
  else if (unit == "us")
    ns_per_unit = 1e3;
  else if (unit == "s")
    ns_per_unit = 1e9;
  else
    return Error{"'" + std::string(text) + "': unknown time unit (ns, us, ms, s)"};
  return static_cast<TimeNs>(std::llround(value * ns_per_unit));
}

Expected<TimeWindow> parse_time_range(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return Error{"range '" + std::string(text) + "' must be T0:T1"};
  auto t0 = parse_time(text.substr(0, colon));
  if (!t0) return t0.error();
  auto t1 = parse_time(text.substr(colon + 1));
  if (!t1) return t1.error();
  if (*t1 <= *t0) return Error{"range '" + std::string(text) + "': the end must be after the start"};
  return TimeWindow{*t0, *t1};
}

Expected<std::pair<int, int>> parse_size(std::string_view text) {
  const auto x = text.find('x');
  int w = 0, h = 0;
  const char* end = text.data() + text.size();
  if (x == std::string_view::npos || std::from_chars(text.data(), text.data() + x, w).ptr != text.data() + x ||
      std::from_chars(text.data() + x + 1, end, h).ptr != end || w < 16 || h < 16 || w > 20000 || h > 20000)
    return Error{"size '" + std::string(text) + "' must be WxH in pixels, e.g. 1920x1080"};
  return std::pair{w, h};
}

}  // namespace gtv::ui
